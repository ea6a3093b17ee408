package gitsource

import (
	"slices"
	"testing"
)

func TestParseCommit(t *testing.T) {
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"author Ada Agent <ada@example.com> 1778058000 +0200\n" +
		"committer Dev <dev@example.com> 1778058060 +0000\n\n" +
		"Add the thing\nacross two lines\n\nBody text.\nEntire-Checkpoint: aaaaaaaaaaaa mentioned in the body\n\n" +
		"Entire-Checkpoint: a1b2c3d4e5f6\nClaude-Session: s-1\nCo-authored-by: X <x@y>\n  continued\n"
	c := ParseCommit("abc", []byte(raw))
	if c.Subject != "Add the thing across two lines" {
		t.Errorf("subject %q", c.Subject)
	}
	if c.Author.Email != "ada@example.com" || c.Committer.Name != "Dev" || c.Committer.Time.Unix() != 1778058060 {
		t.Errorf("identities %+v %+v", c.Author, c.Committer)
	}
	// Every Entire-Checkpoint line counts, as the Entire CLI finds it
	// anywhere in the message.
	if !slices.Equal(c.Checkpoints, []string{"aaaaaaaaaaaa", "a1b2c3d4e5f6"}) {
		t.Errorf("checkpoints %q", c.Checkpoints)
	}
	if !slices.Equal(c.Sessions, []string{"s-1"}) {
		t.Errorf("sessions %q", c.Sessions)
	}
	if len(c.Trailers) != 3 || c.Trailers[2].Value != "X <x@y> continued" {
		t.Errorf("trailers %+v", c.Trailers)
	}
}

func TestValidCheckpointID(t *testing.T) {
	for id, want := range map[string]bool{
		"a1b2c3d4e5f6":                             true,
		"01J9ZQ3XKX4RMA6P8SF7TBV2C0":               true,
		"0123456789abcdef0123456789abcdef01234567": true,
		"A1B2C3D4E5F6":                             false, // hex ids are lowercase
		"a1b2c3d4e5f":                              false,
		"01J9ZQ3XKX4RMA6P8SF7TBV2CU":               false, // U is not Crockford base 32
		"../../etc/pa":                             false,
	} {
		if got := ValidCheckpointID(id); got != want {
			t.Errorf("ValidCheckpointID(%q) = %v, want %v", id, got, want)
		}
	}
}
