package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// TestRunListFaults: `felixsim run --list-faults` prints the fault table,
// every kind with its fields and units, and exits 0 without needing a seed.
func TestRunListFaults(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runCommand([]string{"--list-faults"}, &out, &errOut); code != exitPass {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	text := out.String()
	for _, k := range faultplan.AllFaultKinds() {
		if !strings.Contains(text, "\n"+k.String()+" ") && !strings.HasPrefix(text, k.String()+" ") {
			t.Errorf("--list-faults lacks kind %s:\n%s", k, text)
		}
	}
	// The kill entry, as the v1 plan format described it: a node, whether
	// writes are torn, and the delay before the node boots again.
	kill := text[strings.Index(text, "\nkill "):]
	kill = kill[:strings.Index(kill[1:], "\nrestart ")+1]
	for _, want := range []string{"node (node id):", "torn (flag):", "dur_ns (ns):"} {
		if !strings.Contains(kill, want) {
			t.Errorf("kill entry lacks %q:\n%s", want, kill)
		}
	}
	if !strings.Contains(text, "chance_ppm (ppm):") || !strings.Contains(text, "drift_ppm (ppm):") {
		t.Errorf("--list-faults lacks the ppm fields:\n%s", text)
	}
}
