package logstore

import "testing"

// TestDefectsRoundTrip parses every set of known defects back from its
// String, and refuses unknown names.
func TestDefectsRoundTrip(t *testing.T) {
	for d := Defects(0); d < defectEnd; d++ {
		got, err := ParseDefects(d.String())
		if err != nil || got != d {
			t.Fatalf("ParseDefects(%q) = %v, %v; want %v", d.String(), got, err, d)
		}
	}
	if _, err := ParseDefects("split-tables,no-such-bug"); err == nil {
		t.Fatal("an unknown defect name was accepted")
	}
	if _, err := Open(Options{FS: nil}); err == nil {
		t.Fatal("Open accepted a nil FS")
	}
}
