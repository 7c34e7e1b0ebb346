package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// TestHistoryRecordsDeliveries: the history names every sent write's
// requests with the copies delivered, and the counts agree with what the
// network and the answers say on their own. On a network with no faults
// every copy sent reaches a broker exactly once; with duplication on, an
// acknowledged write had at least one copy delivered (a broker answered
// it), duplicates are counted, and LandsAtMostOncePerDelivery judges the
// run's records rather than skipping them.
func TestHistoryRecordsDeliveries(t *testing.T) {
	for _, tc := range []struct {
		faults string
		seed   uint64
	}{{"none", 1}, {"duplicate", 1}} {
		f, err := ParseFaults(tc.faults)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(Options{Seed: tc.seed, DurationNs: 10e9, FaultGapMeanNs: 6e8, Faults: f, KeepHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Fatalf("faults %s seed %d: %s", tc.faults, tc.seed, res.Summary())
		}
		sent, multi := 0, 0
		for i := range res.History.Ops {
			op := &res.History.Ops[i]
			if !op.Kind.IsWrite() || op.NotSent {
				continue
			}
			sent++
			if op.Requests == nil {
				t.Fatalf("faults %s: op %d (%s, %s) was sent but names no requests", tc.faults, op.ID, op.Kind, op.Outcome)
			}
			copies := uint32(0)
			for _, q := range op.Requests {
				if tc.faults == "none" && q.Delivered != 1 {
					t.Fatalf("faults none: op %d request %d delivered %d times, want 1", op.ID, q.ID, q.Delivered)
				}
				copies += q.Delivered
			}
			if op.Outcome == properties.OutcomeOK && copies == 0 {
				t.Fatalf("faults %s: op %d was acknowledged, yet no copy of its requests %v reached a broker", tc.faults, op.ID, op.Requests)
			}
			if copies > uint32(len(op.Requests)) {
				multi++
			}
		}
		t.Logf("faults %s seed %d: %d sent writes, %d with a request delivered more than once", tc.faults, tc.seed, sent, multi)
		if sent == 0 || (tc.faults == "duplicate" && multi == 0) {
			t.Fatalf("faults %s: %d sent writes, %d delivered more than once: nothing to judge", tc.faults, sent, multi)
		}
	}
}
