package scenario

import (
	"testing"
)

// FuzzParse: Parse never panics, and a file it accepts survives Format
// and a second Parse with the same commands and expected output.
func FuzzParse(f *testing.F) {
	f.Add("# p\n\nbrokers 3\n----\nok\n")
	f.Add("# p\n\ncommit acme orders o publish s 'a b' put s k '|'\n----\nok offset 0\n\n# note\ncheck\n----\n")
	f.Add("# p\n\npartition 1 | 2 3\n----\n")
	f.Add("brokers 3\n----\n")
	f.Add("# p\n\nbrokers 'x\n----\n")
	f.Fuzz(func(t *testing.T, text string) {
		a, err := Parse("fuzz", text)
		if err != nil {
			return
		}
		b, err := Parse("fuzz", Format(a, nil))
		if err != nil {
			t.Fatalf("formatted file refused: %v\n%s", err, Format(a, nil))
		}
		if len(a.Commands) != len(b.Commands) {
			t.Fatalf("%d commands became %d", len(a.Commands), len(b.Commands))
		}
		for i := range a.Commands {
			if a.Commands[i].Text != b.Commands[i].Text || a.Commands[i].Expected != b.Commands[i].Expected {
				t.Fatalf("command %d changed: %q/%q became %q/%q", i, a.Commands[i].Text, a.Commands[i].Expected, b.Commands[i].Text, b.Commands[i].Expected)
			}
		}
	})
}
