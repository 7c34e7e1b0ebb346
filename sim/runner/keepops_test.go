package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/workload"
)

// slotOps lists, per workload client, what each drawn-and-invoked
// operation asked for, in slot order: a client's operations that are
// neither re-sent writes nor group acks.
func slotOps(h *properties.History, clients int) [][]string {
	out := make([][]string, clients)
	for _, op := range h.Ops {
		if op.RetryOf != 0 || op.Kind == properties.HistoryGroupAck || op.Client >= clients {
			// Retries and acks follow from earlier operations; clients past
			// the workload's are the runner's own (the group drain).
			continue
		}
		payload := ""
		if op.Record != nil {
			payload = string(op.Record.Payload)
		}
		out[op.Client] = append(out[op.Client], fmt.Sprintf("%s %s %s %s %s", op.Kind, op.Scope, op.EntityKey, op.Key, payload))
	}
	return out
}

// TestPlanOpsKeepTheSlotsAsDrawn: a plan's ops lines keep exactly the
// named slots, and a kept slot asks for what the same slot asked for in
// the full workload (a skipped slot is drawn all the same), judged against
// the full run's history; a plan whose ops lines name every slot replays
// the full run's trace hash.
func TestPlanOpsKeepTheSlotsAsDrawn(t *testing.T) {
	const clients = 4
	full, err := Run(Options{Seed: 21, DurationNs: 1e9, Faults: NoFaults(), KeepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	fullOps := slotOps(full.History, clients)
	for c := 0; c < clients; c++ {
		if len(fullOps[c]) != full.OpSlots[c] || full.OpSlots[c] < 20 {
			t.Fatalf("client %d: %d ops in the history, %d slots drawn", c, len(fullOps[c]), full.OpSlots[c])
		}
	}
	everything := *full.Plan
	keep := map[int][]int{0: {0, 3, 4, 5, 17}, 2: {}, 3: {1}}
	restricted := *full.Plan
	for c := 0; c < clients; c++ {
		all := make([]int, full.OpSlots[c])
		for i := range all {
			all[i] = i
		}
		everything.Ops = append(everything.Ops, faultplan.ClientOps{Client: c, Keep: faultplan.OpRangesOf(all)})
		if ks, ok := keep[c]; ok {
			restricted.Ops = append(restricted.Ops, faultplan.ClientOps{Client: c, Keep: faultplan.OpRangesOf(ks)})
		}
	}
	same := runPlan(t, &everything)
	if same.TraceHash != full.TraceHash || same.OpsSkipped != 0 {
		t.Fatalf("plan keeping every slot: hash %016x (full run %016x), %d skipped", same.TraceHash, full.TraceHash, same.OpsSkipped)
	}
	got := runPlan(t, &restricted)
	gotOps := slotOps(got.History, clients)
	for c := 0; c < clients; c++ {
		ks, restrictedClient := keep[c]
		if !restrictedClient {
			if len(gotOps[c]) < len(fullOps[c])/2 {
				t.Errorf("client %d (not restricted) invoked %d ops, the full run %d", c, len(gotOps[c]), len(fullOps[c]))
			}
			continue
		}
		if len(gotOps[c]) != len(ks) {
			t.Fatalf("client %d keeps slots %v but invoked %d ops: %v", c, ks, len(gotOps[c]), gotOps[c])
		}
		for i, s := range ks {
			if gotOps[c][i] != fullOps[c][s] {
				t.Errorf("client %d slot %d: %q, the full run's slot %d was %q", c, s, gotOps[c][i], s, fullOps[c][s])
			}
		}
	}
	if got.OpsSkipped == 0 {
		t.Fatal("restricted run counts no skipped slots")
	}
}

func runPlan(t *testing.T, p *faultplan.Plan) *Result {
	t.Helper()
	q, err := faultplan.ParsePlan(p.String())
	if err != nil {
		t.Fatal(err)
	}
	o, err := Options{KeepHistory: true}.WithPlan(q)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPlanOpsForAMissingClientRefused: an ops line for a client the
// workload lacks is refused with the reason, before anything runs.
func TestPlanOpsForAMissingClientRefused(t *testing.T) {
	p := &faultplan.Plan{Seed: 1, Nodes: WorldNodes(Options{Clients: 4}), DurationNs: 1e9, Workload: []faultplan.Param{{Name: workload.ParamClients, Value: 4}},
		Ops: []faultplan.ClientOps{{Client: 5}}}
	o, err := Options{}.WithPlan(p)
	if err == nil {
		_, err = Run(o)
	}
	if err == nil || !strings.Contains(err.Error(), "ops for client 5 refused") {
		t.Fatalf("plan with ops for client 5 of 4: %v", err)
	}
}

// TestRemovingAnOperationKeepsTheOthersTiming: a run without one early
// operation invokes and completes nearly every later operation of every
// client at the very same simulated times as the full run, faults and
// all: the random draws of the network, the disks, raft's jitter and the
// clients are keyed (sim/world/instantdraws.go, sim/workload/draws.go), so the
// removed operation takes only its own messages with it. This is what
// lets `felixsim shrink` drop operations and keep the failure's timing.
// With one sequential stream per component (main before the keyed
// streams, 733f3ee), 8 of 1,663 later operations kept their times.
func TestRemovingAnOperationKeepsTheOthersTiming(t *testing.T) {
	// Slot 3 is an early enqueue. Slots 5 and 6, a publish and a commit
	// whose landings move the tail every later conditional write of their
	// shard expects, keep about 83% of the later times since the live
	// stream joined the mix (the outcome of those conditional writes, and
	// what follows from it, is the removed operation's own effect).
	const clients, removed = 4, 3
	// The kinds that existed when the keyed streams were measured: retain,
	// membership and diskreplace change what the log holds or who serves
	// it whenever an operation is removed, so timing moves by design.
	faults, err := ParseFaults("partition,oneway,isolate,split,bridge,healnet,loss,duplicate,reorder,latency,kill,restart,pause,resume,clockjump,clockdrift,fsyncerr,readerr,corrupt,disklatency,crashat,strand,clientcut,calm")
	if err != nil {
		t.Fatal(err)
	}
	full, err := Run(Options{Seed: 1, DurationNs: 10e9, KeepHistory: true, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	without := *full.Plan
	for c := 0; c < clients; c++ {
		var keep []int
		for s := 0; s < full.OpSlots[c]+100; s++ { // room for slots the shorter run may draw
			if c != 0 || s != removed {
				keep = append(keep, s)
			}
		}
		without.Ops = append(without.Ops, faultplan.ClientOps{Client: c, Keep: faultplan.OpRangesOf(keep)})
	}
	got := runPlan(t, &without)
	type times struct{ invokeNs, completeNs int64 }
	slotTimes := func(h *properties.History) [][]times {
		out := make([][]times, clients)
		for _, op := range h.Ops {
			if op.RetryOf == 0 && op.Kind != properties.HistoryGroupAck && op.Client < clients {
				out[op.Client] = append(out[op.Client], times{op.InvokeNs, op.CompleteNs})
			}
		}
		return out
	}
	fullTimes, gotTimes := slotTimes(full.History), slotTimes(got.History)
	removedAtNs := fullTimes[0][removed].invokeNs
	fullTimes[0] = append(fullTimes[0][:removed:removed], fullTimes[0][removed+1:]...)
	later, kept := 0, 0
	for c := range clients {
		for i, ft := range fullTimes[c] {
			if ft.invokeNs <= removedAtNs {
				continue
			}
			later++
			if i < len(gotTimes[c]) && gotTimes[c][i] == ft {
				kept++
			}
		}
	}
	t.Logf("client 0 slot %d removed at %d ns: %d of %d later operations kept their times", removed, removedAtNs, kept, later)
	if later < 1000 || kept*100 < later*95 {
		t.Fatalf("only %d of %d operations after the removed one kept their invoke and complete times, want 95%%", kept, later)
	}
}
