package shell

import (
	"reflect"
	"strings"
	"testing"
)

// TestUnwrapDyn: the program behind each wrapper, as the classifier reads
// it; a wrapper that runs a command string becomes sh -c STRING, one that
// runs nothing no words, and a computed word stops the unwrapping.
func TestUnwrapDyn(t *testing.T) {
	for _, c := range []struct {
		line    string
		dynamic []int // indexes of computed words
		want    []string
		wantDyn []bool
	}{
		{line: "sudo -u root git push", want: []string{"git", "push"}},
		{line: "env A=1 B=2 timeout -s KILL 60 nice -n 5 git push", want: []string{"git", "push"}},
		{line: "uv run pytest -x", want: []string{"pytest", "-x"}},
		{line: "uv run --frozen pytest", want: []string{"uv", "run", "--frozen", "pytest"}},
		{line: "python3 -u -m twine upload dist", want: []string{"twine", "upload", "dist"}},
		{line: "python3 script.py", want: []string{"python3", "script.py"}},
		{line: "su -c whoami root", want: []string{"sh", "-c", "whoami"}},
		{line: "env -S git push", want: []string{"sh", "-c", "git push"}},
		{line: "env -Sgit push", want: []string{"sh", "-c", "git push"}},
		{line: "flock /tmp/lock -c deploy.sh", want: []string{"sh", "-c", "deploy.sh"}},
		{line: "watch -n 5 git status", want: []string{"sh", "-c", "git status"}},
		{line: "command -v git", want: nil},
		{line: "xargs -n 1 git push", want: []string{"git", "push"}},
		{line: "sudo $CMD push", dynamic: []int{1}, want: []string{"$CMD", "push"}, wantDyn: []bool{true, false}},
		{line: "env -S $CMD", dynamic: []int{2}, want: []string{"sh", "-c", "$CMD"}, wantDyn: []bool{false, false, true}},
		{line: "git push", want: []string{"git", "push"}},
	} {
		words := strings.Fields(c.line)
		dyn := make([]bool, len(words))
		for _, i := range c.dynamic {
			dyn[i] = true
		}
		got, gotDyn := UnwrapDyn(words, dyn)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
			continue
		}
		wantDyn := c.wantDyn
		if wantDyn == nil && c.want != nil {
			wantDyn = make([]bool, len(c.want))
		}
		if !reflect.DeepEqual(gotDyn, wantDyn) {
			t.Errorf("%q: computed %v, want %v", c.line, gotDyn, wantDyn)
		}
	}
}
