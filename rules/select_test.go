package rules

import (
	"reflect"
	"testing"
)

// check reads its inputs while the default pack compiles, with no detector
// settings (cmd/pmcheck, CheckCmd.document): the defaults must set none.
func TestDefaultsSetNoSettings(t *testing.T) {
	p, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Settings, Settings{}) {
		t.Errorf("the default pack sets detector settings %+v: check would read without them", p.Settings)
	}
	if !(Options{}).DefaultsOnly() || (Options{Disable: []string{"x"}}).DefaultsOnly() || (Options{Files: []string{"+a.yaml"}}).DefaultsOnly() || (Options{Severity: []string{"a=note"}}).DefaultsOnly() {
		t.Error("DefaultsOnly is true exactly for options that change nothing")
	}
}
