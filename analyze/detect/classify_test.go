package detect

import (
	"reflect"
	"slices"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/ship"
)

// The parse cache shares analyses without lists by plainAnalysis: it must
// hold every other field of ship.Analysis, or two different analyses would
// be shared.
func TestPlainAnalysisHoldsEveryScalar(t *testing.T) {
	var fields []string
	at := reflect.TypeOf(ship.Analysis{})
	for i := range at.NumField() {
		if at.Field(i).Type.Kind() != reflect.Slice {
			fields = append(fields, at.Field(i).Name)
		}
	}
	if want := []string{"ParseError", "Commits", "MayWrite", "MayShip", "GitNotBuiltin"}; !slices.Equal(fields, want) || reflect.TypeOf(plainAnalysis{}).NumField() != len(want) {
		t.Fatalf("ship.Analysis's fields without lists are %v: update plainAnalysis and remember", fields)
	}
}
