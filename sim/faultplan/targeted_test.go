package faultplan

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// momenter reports the moment a message names, then notes that its call
// went on past it; a message naming no moment (0) writes a file instead.
type momenter struct {
	id  int
	env simapi.Env
	m   *momenters
}

// momenters is the shared record of every momenter in one world.
type momenters struct {
	boots []int
	// past counts, per node, the calls that ran on past their moment.
	past []int
}

func (p *momenter) Boot(env simapi.Env) { p.env = env; p.m.boots[p.id]++ }
func (p *momenter) Receive(_ int, msg simapi.Message) {
	m := moment.Moment(msg.(worldtest.ProbeMsg))
	if m == 0 {
		f, err := p.env.FS().Create("f")
		if err == nil {
			f.Write([]byte("x"))
		}
		return
	}
	p.env.Moment(m)
	p.m.past[p.id]++
}

// momenterWorld builds n momenters plus a sender (the last node, fault
// exempt) that a test sends messages from.
func momenterWorld(t *testing.T, n int) (*world.World, *momenters, func(to int, m moment.Moment)) {
	t.Helper()
	mm := &momenters{boots: make([]int, n), past: make([]int, n)}
	specs := make([]world.NodeSpec, n+1)
	for i := 0; i < n; i++ {
		id := i
		specs[i] = world.NodeSpec{Name: "momenter", New: func() simapi.Process { return &momenter{id: id, m: mm} }}
	}
	senders := worldtest.NewProbes(n + 1)
	specs[n] = world.NodeSpec{Name: "sender", FaultExempt: true, New: func() simapi.Process { return &worldtest.Probe{ID: n, P: senders} }}
	w, err := world.New(world.Config{Seed: 5, Nodes: specs, Link: worldtest.FixedLink, RecordTrace: true, Coverage: coverage.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	senders.W = w
	w.RunFor(0)
	send := func(to int, m moment.Moment) {
		senders.Envs[n].Send(to, worldtest.ProbeMsg(m))
		w.RunFor(2_000_000) // delivered after 1 ms
	}
	return w, mm, send
}

// armedMomenters is momenterWorld with f applied now (its AtNs set) and
// its watch armed.
func armedMomenters(t *testing.T, n int, f FaultEvent) (*world.World, *momenters, func(to int, m moment.Moment)) {
	t.Helper()
	w, mm, send := momenterWorld(t, n)
	f.AtNs = w.NowNs()
	if err := ApplyFault(w, f); err != nil {
		t.Fatal(err)
	}
	w.RunFor(0)
	return w, mm, send
}

// TestRestartAfterStrikesAtTheMoment: a restartafter fault ignores other
// moments and nodes outside its mask, kills the first node of its mask to
// reach its moment right there (its call runs no further), boots it again
// after dur_ns, strikes once, and counts its window and its effect.
func TestRestartAfterStrikesAtTheMoment(t *testing.T) {
	w, mm, send := armedMomenters(t, 3, FaultEvent{Kind: FaultRestartAfter, Mask: 1 << 1, After: moment.SnapshotInstalled, WindowNs: 50_000_000, DurNs: 5_000_000})
	send(1, moment.GroupAckDurable)
	send(0, moment.SnapshotInstalled)
	if !w.Up(0) || !w.Up(1) || mm.past[0] != 1 || mm.past[1] != 1 {
		t.Fatalf("another moment or a node outside the mask was struck: up %v %v, past %v", w.Up(0), w.Up(1), mm.past)
	}
	send(1, moment.SnapshotInstalled)
	if w.Up(1) || mm.past[1] != 1 {
		t.Fatalf("node 1 reached the moment: up %v, calls past it %d; want down, 1", w.Up(1), mm.past[1])
	}
	w.RunFor(5_000_000)
	if !w.Up(1) || mm.boots[1] != 2 {
		t.Fatalf("after dur_ns: up %v, boots %d; want up, 2", w.Up(1), mm.boots[1])
	}
	struckOnce(t, w, send, 1, moment.SnapshotInstalled, "restartafter")
}

// struckOnce reports m for node again, which the fault of kind, having
// struck once, must leave alone, and requires the fault's firing, its
// effect and its window each counted once.
func struckOnce(t *testing.T, w *world.World, send func(int, moment.Moment), node int, m moment.Moment, kind string) {
	t.Helper()
	send(node, m)
	if !w.Up(node) {
		t.Fatal("a targeted fault struck twice")
	}
	c := w.Coverage()
	if c.Get(coverage.Targeted(m.String())) != 1 || c.Get(coverage.FaultEffect(kind)) != 1 || c.Get(coverage.FaultFired(kind)) != 1 {
		t.Fatalf("coverage %v", c.Map())
	}
}

// TestTargetedFaultLapses: a moment after the window, or after a calm,
// strikes nothing, and the fault counts no effect.
func TestTargetedFaultLapses(t *testing.T) {
	for _, calm := range []bool{false, true} {
		t.Run(map[bool]string{false: "window", true: "calm"}[calm], func(t *testing.T) { lapses(t, calm) })
	}
}

// lapses applies a fault, lets its window pass (or a calm undo it), and
// then reports its moment.
func lapses(t *testing.T, calm bool) {
	w, _, send := momenterWorld(t, 2)
	f := FaultEvent{AtNs: w.NowNs(), Kind: FaultRestartAfter, Mask: 0x3, After: moment.PendingHeld, WindowNs: 10_000_000, DurNs: 1_000_000}
	if err := ApplyFault(w, f); err != nil {
		t.Fatal(err)
	}
	w.RunFor(0)
	if calm {
		w.Calm()
	} else {
		w.RunFor(20_000_000)
	}
	send(0, moment.PendingHeld)
	if !w.Up(0) || w.Coverage().Get(coverage.FaultEffect("restartafter")) != 0 || w.Coverage().Get(coverage.TargetedPendingHeld) != 0 {
		t.Fatalf("calm %v: a lapsed fault struck: up %v, coverage %v", calm, w.Up(0), w.Coverage().Map())
	}
}

// TestCrashAfterArmsACrashAtTheMoment: crashafter lets the call that
// reached the moment go on, and the node dies at its next disk operation.
func TestCrashAfterArmsACrashAtTheMoment(t *testing.T) {
	w, mm, send := momenterWorld(t, 2)
	f := FaultEvent{AtNs: w.NowNs(), Kind: FaultCrashAfter, Mask: 1, After: moment.Compacted, WindowNs: 50_000_000,
		DiskOps: 1, CrashModel: world.CrashLost, DurNs: 5_000_000}
	if err := ApplyFault(w, f); err != nil {
		t.Fatal(err)
	}
	w.RunFor(0)
	send(0, moment.Compacted)
	if !w.Up(0) || mm.past[0] != 1 || w.Coverage().Get(coverage.TargetedCompacted) != 1 {
		t.Fatalf("at the moment: up %v, past %d, coverage %v; want up, 1, the window counted", w.Up(0), mm.past[0], w.Coverage().Map())
	}
	if w.Coverage().Get(coverage.FaultEffect("crashafter")) != 0 {
		t.Fatal("effect counted before the crash")
	}
	send(0, 0) // a disk write
	if w.Up(0) || w.Coverage().Get(coverage.FaultEffect("crashafter")) != 1 {
		t.Fatalf("after the next disk operation: up %v, coverage %v; want down and the effect counted", w.Up(0), w.Coverage().Map())
	}
}

// TestMomentFromAHarnessCallKillsAfterIt: a moment reported while the
// harness calls into the node (not the node's own event) kills it once
// that call has returned.
func TestMomentFromAHarnessCallKillsAfterIt(t *testing.T) {
	w, mm, _ := momenterWorld(t, 1)
	f := FaultEvent{AtNs: w.NowNs(), Kind: FaultRestartAfter, Mask: 1, After: moment.MembershipInFlight, WindowNs: 50_000_000, DurNs: 1_000_000}
	if err := ApplyFault(w, f); err != nil {
		t.Fatal(err)
	}
	w.RunFor(0)
	returned := false
	w.At(w.NowNs(), 0, func() {
		w.Process(0).(*momenter).env.Moment(moment.MembershipInFlight)
		returned = true
	})
	w.RunFor(0)
	if !returned || w.Up(0) || mm.past[0] != 0 {
		t.Fatalf("harness call returned %v, node up %v", returned, w.Up(0))
	}
}

// TestTargetedKindsLeaveOtherDrawsAlone: adding the targeted kinds to a
// seed's kinds adds targeted faults (from their own stream) and changes
// none of the others, and the plan prints and parses back.
func TestTargetedKindsLeaveOtherDrawsAlone(t *testing.T) {
	var without []FaultKind
	for _, k := range AllFaultKinds() {
		if !k.Targeted() {
			without = append(without, k)
		}
	}
	for seed := uint64(1); seed <= 20; seed++ {
		k := Knobs{Seed: seed, Nodes: 4, ExemptMask: 1 << 3, DurationNs: 20e9, FaultGapMeanNs: 1e9, Swarm: true, Kinds: without}
		before, err := Generate(k)
		if err != nil {
			t.Fatal(err)
		}
		k.Kinds = AllFaultKinds()
		after, err := Generate(k)
		if err != nil {
			t.Fatal(err)
		}
		var rest []FaultEvent
		targeted := 0
		for _, f := range after.Faults {
			if f.Kind.Targeted() {
				targeted++
				if f.Mask == 0 || f.Mask&(1<<3) != 0 || !f.After.Valid() {
					t.Fatalf("seed %d: drawn %s aims outside the targets", seed, f)
				}
				continue
			}
			rest = append(rest, f)
		}
		if len(rest) != len(before.Faults) {
			t.Fatalf("seed %d: %d other faults with the targeted kinds, %d without", seed, len(rest), len(before.Faults))
		}
		for i := range rest {
			if rest[i] != before.Faults[i] {
				t.Fatalf("seed %d: fault %d is %s with the targeted kinds, %s without", seed, i, rest[i], before.Faults[i])
			}
		}
		if seed == 1 && targeted == 0 {
			t.Fatal("seed 1 drew no targeted fault")
		}
		if q, err := ParsePlan(after.String()); err != nil || q.String() != after.String() {
			t.Fatalf("seed %d: a plan with targeted faults does not round-trip: %v", seed, err)
		}
	}
}

// TestEveryMomentIsCounted: each moment a targeted fault waits for has its
// declared coverage point.
func TestEveryMomentIsCounted(t *testing.T) {
	declared := map[coverage.Point]bool{}
	for _, d := range coverage.Declared() {
		declared[d.Point] = true
	}
	for _, m := range moment.All() {
		if !declared[coverage.Targeted(m.String())] {
			t.Errorf("moment %s: no declared point %s", m, coverage.Targeted(m.String()))
		}
	}
}

// TestTargetedPlanLinesRefuseBadFields: a targeted fault line parses back
// as printed, and one naming no moment, an unknown moment, a negative
// window or a field its kind lacks is refused, naming it.
func TestTargetedPlanLinesRefuseBadFields(t *testing.T) {
	head := "felixsim-plan v2\nseed 1\nnodes 3\nduration_ns 9000000000\n"
	good := head + "fault at_ns=5 kind=restartafter mask=0x3 after=snapshot_installed window_ns=2000000000 dur_ns=7000000\n"
	p, err := ParsePlan(good)
	if err != nil || p.String() != good || p.Faults[0].After != moment.SnapshotInstalled {
		t.Fatalf("ParsePlan(%q) = %v, %v", good, p, err)
	}
	for line, want := range map[string]string{
		"fault at_ns=5 kind=restartafter mask=0x3 after=snapshot window_ns=1 dur_ns=1":                               "snapshot",
		"fault at_ns=5 kind=restartafter mask=0x3 after=invalid window_ns=1 dur_ns=1":                                "not one of",
		"fault at_ns=5 kind=restartafter mask=0x3 after=compacted window_ns=-1 dur_ns=1":                             "window_ns=-1",
		"fault at_ns=5 kind=restartafter mask=0x3 after=compacted window_ns=1 dur_ns=1 disk_ops=2":                   "kind restartafter takes",
		"fault at_ns=5 kind=crashafter mask=0x1 after=pending_held window_ns=1 disk_ops=0 crash_model=torn dur_ns=1": "disk_ops=0",
		"fault at_ns=5 kind=restartafter mask=0x3 window_ns=1 dur_ns=1":                                              "after",
	} {
		if _, err := ParsePlan(head + line + "\n"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %q", line, err, want)
		}
	}
}

// TestPauseAfterPausesAtTheMoment: a pauseafter fault pauses the node of
// its mask that reaches its moment (its call runs on), so that what a
// peer sends it meanwhile is lost while what a fault-exempt node (a
// client) sends waits and arrives on resume, after dur_ns; it strikes
// once and counts its window and its effect.
func TestPauseAfterPausesAtTheMoment(t *testing.T) {
	w, mm, send := armedMomenters(t, 3, FaultEvent{Kind: FaultPauseAfter, Mask: 1 << 1, After: moment.ReadsConfirmed, WindowNs: 50_000_000, DurNs: 20_000_000})
	send(1, moment.ReadsConfirmed)
	if w.Up(1) || w.Down(1) || mm.past[1] != 1 {
		t.Fatalf("at the moment: up %v, down %v, calls past it %d; want paused, its call run on", w.Up(1), w.Down(1), mm.past[1])
	}
	w.At(w.NowNs(), 0, func() { w.Process(0).(*momenter).env.Send(1, worldtest.ProbeMsg(moment.Compacted)) }) // a peer's: lost
	send(1, moment.Compacted)                                                                                 // the exempt sender's: waits
	if mm.past[1] != 1 {
		t.Fatalf("a paused node ran %d calls", mm.past[1]-1)
	}
	w.RunFor(20_000_000)
	if !w.Up(1) || mm.past[1] != 2 {
		t.Fatalf("after dur_ns: up %v, calls past a moment %d; want up, 2 (the client's message, not the peer's)", w.Up(1), mm.past[1])
	}
	struckOnce(t, w, send, 1, moment.ReadsConfirmed, "pauseafter")
}
