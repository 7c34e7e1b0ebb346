package tla

import (
	"strings"
	"testing"
)

// TestExploreIsDeterministic: two explorations give the same counts and
// the same counterexample, step for step.
func TestExploreIsDeterministic(t *testing.T) {
	cfg, err := Select("", "SplitRecords")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := NewReport(a, 0), NewReport(b, 0)
	var ja, jb strings.Builder
	if err := ra.WriteJSON(&ja); err != nil {
		t.Fatal(err)
	}
	if err := rb.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	if ja.String() != jb.String() {
		t.Fatalf("two explorations differ:\n%s\n%s", ja.String(), jb.String())
	}
}
