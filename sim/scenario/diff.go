package scenario

import (
	"fmt"
	"strings"
)

// Diff compares each command's expected output with outputs and returns
// a readable report of every mismatch ("" when all match): the file and
// line of the command, then the expected lines (-) and the actual ones (+).
func Diff(f *File, outputs []string) string {
	var b strings.Builder
	for i, c := range f.Commands {
		if c.Expected == outputs[i] {
			continue
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", f.Name, c.Line, c.Text)
		for _, ln := range strings.Split(c.Expected, "\n") {
			b.WriteString("  - " + ln + "\n")
		}
		for _, ln := range strings.Split(outputs[i], "\n") {
			b.WriteString("  + " + ln + "\n")
		}
	}
	return b.String()
}
