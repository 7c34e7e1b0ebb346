package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestRunJSONHasDensity: `felixsim run --json` prints the density that
// make bench-floor hands to the bare raft harness, with every field it
// reads.
func TestRunJSONHasDensity(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runCommand([]string{"--seed", "2", "--duration", "1s", "--faults", "none", "--json"}, &out, &errOut); code != exitPass {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var m struct {
		SimSeconds float64 `json:"sim_seconds"`
		Density    map[string]float64
	}
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"raft_groups", "brokers", "ticks_per_sim_second", "proposals_per_sim_second",
		"proposal_bytes_mean", "proposal_bytes_max", "sim_seconds", "ticks", "proposals", "conf_changes"} {
		if _, ok := m.Density[k]; !ok {
			t.Errorf("density lacks %q: %v", k, m.Density)
		}
	}
	// Four shards of the quorum stream, one of the live stream, the
	// metadata group.
	if m.Density["raft_groups"] != 6 || m.Density["brokers"] != 3 || m.Density["sim_seconds"] != m.SimSeconds || m.Density["proposals"] == 0 {
		t.Fatalf("density %v of a run of %v simulated s", m.Density, m.SimSeconds)
	}
}
