package shrink

import (
	"context"
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
)

// fakeWorld judges plans without processes, so the search's order can be
// tested by candidate counts: 4 clients, client c's slot k invoked at
// k·20 ms + c ms and answered 3 ms later, on scope "s(3k+c mod 8)"; a
// plan fails fakeTarget when it runs until the read is answered and keeps
// the read's slot, the other culprit slots and the fault at faultAtNs.
type fakeWorld struct {
	read    opSlot
	others  []opSlot
	faultNs int64
	// evidence: the failing run names the read (client, scope, times).
	evidence bool
}

const (
	fakeTarget   properties.InvariantName = "LinearizableRead"
	fakeClients                           = 4
	fakeGapNs                             = 20_000_000
	fakeAnswerNs                          = 3_000_000
	fakeLongNs                            = 60_000_000_000
)

func fakeInvokeNs(o opSlot) int64 { return int64(o.slot)*fakeGapNs + int64(o.client)*1_000_000 }

func fakeScope(o opSlot) string { return fmt.Sprintf("s%d", (3*o.slot+o.client)%8) }

// judge is the run of p.
func (w *fakeWorld) judge(p *faultplan.Plan) *outcome {
	out := &outcome{faults: len(p.Faults), opSlots: make([]int, fakeClients)}
	for c := range out.opSlots {
		for k := 0; fakeInvokeNs(opSlot{c, k}) < p.DurationNs; k++ {
			out.opSlots[c]++
			if p.KeepsOp(c, k) {
				out.ops++
			}
		}
	}
	fails := p.DurationNs > fakeInvokeNs(w.read)+fakeAnswerNs && p.KeepsOp(w.read.client, w.read.slot)
	for _, o := range w.others {
		fails = fails && p.KeepsOp(o.client, o.slot)
	}
	hasFault := false
	for _, f := range p.Faults {
		hasFault = hasFault || f.AtNs == w.faultNs
	}
	if fails && hasFault {
		out.invariants = []properties.InvariantName{fakeTarget}
		out.evidence = [][]runner.Evidence{nil}
		if w.evidence {
			out.evidence[0] = []runner.Evidence{{Op: 1, Client: w.read.client, Scope: fakeScope(w.read),
				InvokeNs: fakeInvokeNs(w.read), CompleteNs: fakeInvokeNs(w.read) + fakeAnswerNs}}
		}
	}
	h := fnv.New64a()
	h.Write([]byte(p.String()))
	out.traceHash = fmt.Sprintf("%016x", h.Sum64())
	return out
}

// fakeShrinker is a search over w from a 60 s plan with 8 calm faults,
// jobs candidates at a time.
func fakeShrinker(t *testing.T, w *fakeWorld, jobs int) *shrinker {
	t.Helper()
	p := &faultplan.Plan{Seed: 1, Nodes: 3, DurationNs: fakeLongNs}
	for i := int64(1); i <= 8; i++ {
		p.Faults = append(p.Faults, faultplan.FaultEvent{AtNs: i * 5_000_000_000, Kind: faultplan.FaultCalm})
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	s := &shrinker{opts: Options{Jobs: jobs, CandidatesMax: 10_000, Budget: time.Hour}, target: fakeTarget,
		start: time.Now(), deadline: time.Now().Add(time.Hour), seen: map[string]*outcome{}, scopes: map[opSlot]string{}}
	s.runPlan = func(_ context.Context, _ string, q *faultplan.Plan) (*outcome, error) { return w.judge(q), nil }
	s.best, s.bestOut = p, w.judge(p)
	s.smallest, s.smallestOut = s.best, s.bestOut
	for c, n := range s.bestOut.opSlots {
		for k := 0; k < n; k++ {
			s.scopes[opSlot{c, k}] = fakeScope(opSlot{c, k})
		}
	}
	if !s.bestOut.fails(fakeTarget) {
		t.Fatalf("the fake's original plan passes")
	}
	return s
}

// keptOf lists the slots p keeps among the ones out drew.
func keptOf(p *faultplan.Plan, out *outcome) []opSlot {
	var kept []opSlot
	for c, n := range out.opSlots {
		for k := 0; k < n; k++ {
			if p.KeepsOp(c, k) {
				kept = append(kept, opSlot{c, k})
			}
		}
	}
	return kept
}

// slotOn is client c's first slot at or after from on scope.
func slotOn(c, from int, scope string) opSlot {
	for k := from; ; k++ {
		if fakeScope(opSlot{c, k}) == scope {
			return opSlot{c, k}
		}
	}
}

var fakeRead = opSlot{2, 1900} // invoked at 38.002 s, on s6

// TestFocusKeepsOnlyTheViolationsClientAndScope: when the failure needs
// only operations of the client and scope its evidence names, the first
// focus candidate keeps just those, one candidate for 5/6 of the slots.
func TestFocusKeepsOnlyTheViolationsClientAndScope(t *testing.T) {
	w := &fakeWorld{read: fakeRead, others: []opSlot{slotOn(2, 1000, fakeScope(fakeRead))}, faultNs: 10e9, evidence: true}
	s := fakeShrinker(t, w, 2)
	if err := s.shrinkFocus(); err != nil {
		t.Fatal(err)
	}
	kept := keptOf(s.best, s.bestOut)
	for _, o := range kept {
		if o.client != w.read.client || fakeScope(o) != fakeScope(w.read) {
			t.Fatalf("focus kept client %d slot %d on %s; want only client %d on %s", o.client, o.slot, fakeScope(o), w.read.client, fakeScope(w.read))
		}
	}
	if len(kept)*16 > s.bestOut.opSlots[0]*fakeClients || s.candidates > 2 {
		t.Fatalf("focus kept %d slots with %d candidates", len(kept), s.candidates)
	}
}

// TestFocusFallsBackToTheScope: when the failure needs another client's
// operation on the violation's scope, the scope's operations are kept,
// from every client, and nothing more.
func TestFocusFallsBackToTheScope(t *testing.T) {
	w := &fakeWorld{read: fakeRead, others: []opSlot{slotOn(0, 1500, fakeScope(fakeRead))}, faultNs: 10e9, evidence: true}
	s := fakeShrinker(t, w, 1)
	if err := s.shrinkFocus(); err != nil {
		t.Fatal(err)
	}
	clients := map[int]bool{}
	for _, o := range keptOf(s.best, s.bestOut) {
		clients[o.client] = true
		if fakeScope(o) != fakeScope(w.read) {
			t.Fatalf("focus kept client %d slot %d on %s; want only %s", o.client, o.slot, fakeScope(o), fakeScope(w.read))
		}
	}
	if len(clients) != fakeClients || s.candidates != 2 {
		t.Fatalf("focus kept the slots of %d clients after %d candidates; want all %d after 2", len(clients), s.candidates, fakeClients)
	}
}

// TestDurationProbesJustPastTheEvidence: with evidence, the duration
// phase cuts the fault phase to a millisecond or two past the violating
// read's answer in one round of probes; without, it bisects, with more
// candidates to a longer duration.
func TestDurationProbesJustPastTheEvidence(t *testing.T) {
	want := roundMs(fakeInvokeNs(fakeRead)+fakeAnswerNs) + 2_000_000
	got := map[bool][2]int64{}
	for _, evidence := range []bool{true, false} {
		w := &fakeWorld{read: fakeRead, faultNs: 10e9, evidence: evidence}
		s := fakeShrinker(t, w, 2)
		if err := s.shrinkDuration(); err != nil {
			t.Fatal(err)
		}
		got[evidence] = [2]int64{s.best.DurationNs, int64(s.candidates)}
	}
	if got[true][0] != want || got[true][1] > 4 {
		t.Fatalf("with evidence: duration %d ns after %d candidates; want %d ns after at most 4", got[true][0], got[true][1], want)
	}
	if got[false][0] < want || got[false][1] <= got[true][1] {
		t.Fatalf("without evidence: duration %d ns after %d candidates; with: %v", got[false][0], got[false][1], got[true])
	}
	// A second pass has nothing to cut and runs nothing.
	w := &fakeWorld{read: fakeRead, faultNs: 10e9, evidence: true}
	s := fakeShrinker(t, w, 2)
	if err := s.shrinkDuration(); err != nil {
		t.Fatal(err)
	}
	before := s.candidates
	if err := s.shrinkDuration(); err != nil || s.candidates != before {
		t.Fatalf("second duration pass: %v, %d more candidates", err, s.candidates-before)
	}
}

// TestOpGroupsRemoveWholeClientsAndScopes: without evidence, the group
// phases drop every client and scope the failure does not need.
func TestOpGroupsRemoveWholeClientsAndScopes(t *testing.T) {
	w := &fakeWorld{read: fakeRead, others: []opSlot{slotOn(0, 1500, fakeScope(fakeRead))}, faultNs: 10e9}
	s := fakeShrinker(t, w, 2)
	if err := s.shrinkClients(); err != nil {
		t.Fatal(err)
	}
	afterClients := s.candidates
	if err := s.shrinkScopes(); err != nil {
		t.Fatal(err)
	}
	for _, o := range keptOf(s.best, s.bestOut) {
		if (o.client != 0 && o.client != 2) || fakeScope(o) != fakeScope(w.read) {
			t.Fatalf("groups kept client %d slot %d on %s", o.client, o.slot, fakeScope(o))
		}
	}
	if afterClients > 8 || s.candidates > 24 {
		t.Fatalf("groups took %d candidates for the clients, %d in all", afterClients, s.candidates)
	}
}

// TestSearchReachesTheCulpritsInFewCandidates: the whole search, from a
// 60 s plan of 12,000 slots and 8 faults, ends at the two culprit slots
// and the one fault, in under 120 candidates, and is 5x smaller within
// the first 6 (the duration's probes and focus); one worker and two
// reach the same plan.
func TestSearchReachesTheCulpritsInFewCandidates(t *testing.T) {
	w := &fakeWorld{read: fakeRead, others: []opSlot{slotOn(0, 1500, fakeScope(fakeRead))}, faultNs: 10e9, evidence: true}
	var plans []string
	for _, jobs := range []int{1, 2} {
		s := fakeShrinker(t, w, jobs)
		original, fifth := s.bestOut.faults+s.bestOut.ops, 0
		s.opts.Progress = func(p Progress) {
			if fifth == 0 && p.Best.Total()*5 <= original {
				fifth = p.Candidates
			}
		}
		if _, err := s.search(); err != nil {
			t.Fatal(err)
		}
		kept := keptOf(s.best, s.bestOut)
		t.Logf("jobs %d: %d candidates, 5x after %d", jobs, s.candidates, fifth)
		if len(kept) != 2 || len(s.best.Faults) != 1 || s.candidates > 120 || fifth == 0 || fifth > 6 {
			t.Fatalf("jobs %d: %d slots (%v), %d faults after %d candidates, 5x after %d", jobs, len(kept), kept, len(s.best.Faults), s.candidates, fifth)
		}
		plans = append(plans, s.best.String())
	}
	if plans[0] != plans[1] {
		t.Fatalf("one worker and two shrank to different plans:\n%s\nvs\n%s", plans[0], plans[1])
	}
}

// TestLatestKeepsTheLastFaultsMovedEarlier: when the failure needs only a
// fault near the end of the schedule (the loss at 49 s among 16 faults),
// the latest phase keeps the last eighth of the faults, moved so the
// first of them strikes at once, in one candidate; a failure that needs
// the first fault keeps every fault, after the three candidates.
func TestLatestKeepsTheLastFaultsMovedEarlier(t *testing.T) {
	for _, needFirst := range []bool{false, true} {
		p := &faultplan.Plan{Seed: 1, Nodes: 3, DurationNs: fakeLongNs}
		for i := int64(0); i < 16; i++ {
			f := faultplan.FaultEvent{AtNs: 1_500_000_000 + i*3_500_000_000, Kind: faultplan.FaultCalm}
			if i == 0 || i == 14 {
				f = faultplan.FaultEvent{AtNs: f.AtNs, Kind: faultplan.FaultLoss, ChancePpm: 1000 + i}
			}
			p.Faults = append(p.Faults, f)
		}
		fails := func(q *faultplan.Plan) bool {
			var first, late bool
			for _, f := range q.Faults {
				first = first || f.ChancePpm == 1000
				late = late || (f.ChancePpm == 1014 && q.DurationNs >= f.AtNs+1e9)
			}
			return late && (first || !needFirst)
		}
		s := fakeShrinker(t, &fakeWorld{read: fakeRead, faultNs: 10e9}, 2)
		s.runPlan = func(_ context.Context, _ string, q *faultplan.Plan) (*outcome, error) {
			out := &outcome{faults: len(q.Faults), traceHash: q.String()}
			if fails(q) {
				out.invariants = []properties.InvariantName{fakeTarget}
			}
			return out, nil
		}
		s.best = p
		if err := s.shrinkLatest(); err != nil {
			t.Fatal(err)
		}
		switch {
		case !needFirst && (len(s.best.Faults) != 2 || s.best.Faults[0].AtNs >= 1_000_000 || s.best.DurationNs != fakeLongNs-50_500_000_000 || s.candidates > 2):
			t.Fatalf("latest kept %d faults, the first at %d ns, over %d ns, after %d candidates", len(s.best.Faults), s.best.Faults[0].AtNs, s.best.DurationNs, s.candidates)
		case needFirst && (s.best != p || s.candidates != 3):
			t.Fatalf("latest changed a plan whose failure needs its first fault (%d faults left) after %d candidates", len(s.best.Faults), s.candidates)
		}
	}
}
