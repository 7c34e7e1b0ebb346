package tla

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// cfgInvariants returns the names a TLC config lists under INVARIANT, in
// order (indented lines after the keyword, up to the next blank line or
// keyword).
func cfgInvariants(text string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "INVARIANT":
			in = true
		case in && strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "":
			names = append(names, strings.TrimSpace(line))
		default:
			in = false
		}
	}
	return names
}

// TestMirrorNamesAreTLCs: every config that checks invariants lists
// exactly the mirror's, in the mirror's order; each is defined in
// FelixAtomicCommit.tla; and each is in properties' registry as a safety
// invariant. The names TLC prints are then the names the mirror reports.
func TestMirrorNamesAreTLCs(t *testing.T) {
	var mirror []string
	for _, n := range InvariantNames() {
		mirror = append(mirror, string(n))
	}
	spec, err := os.ReadFile("FelixAtomicCommit.tla")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range mirror {
		if !regexp.MustCompile(`(?m)^` + n + ` ==`).Match(spec) {
			t.Errorf("%s: no definition in FelixAtomicCommit.tla", n)
		}
	}
	cfgs, err := filepath.Glob("*.cfg")
	if err != nil || len(cfgs) == 0 {
		t.Fatalf("no .cfg files: %v", err)
	}
	checked := 0
	for _, path := range cfgs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := cfgInvariants(string(text))
		if len(got) == 0 {
			continue // a config explored in full, nothing checked
		}
		checked++
		if !slices.Equal(got, mirror) {
			t.Errorf("%s lists invariants %v, the mirror checks %v", path, got, mirror)
		}
	}
	if checked < 5 {
		t.Fatalf("only %d configs list invariants", checked)
	}
	if err := checkTable(invariants); err != nil {
		t.Fatal(err)
	}
}

// TestCheckTableRefusesStrangers: a mirror table entry the registry does
// not hold, or one that is not a safety invariant, is refused by name.
func TestCheckTableRefusesStrangers(t *testing.T) {
	for _, c := range []struct {
		name properties.InvariantName
		want string
	}{
		{"NoPartialCommits", `"NoPartialCommits" refused: not in the registry`},
		{properties.InvariantLiveness, "Liveness refused: family liveness"},
	} {
		table := append(slices.Clone(invariants), invariant{name: c.name, check: (*checker).noPartialCommit})
		err := checkTable(table)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("table with %s: %v, want an error with %q", string(c.name), err, c.want)
		}
	}
}
