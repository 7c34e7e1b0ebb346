package properties

import (
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// linRef is the reference log of fixtureLog, optionally with extra records
// appended after it.
func linRef(extra ...felix.Record) *ReplicaLog {
	l := fixtureLog()
	for i := range extra {
		l.Log = append(l.Log, ViewEntryOf(l.NextOffset, &extra[i]))
		l.NextOffset++
	}
	return &ReplicaLog{Scopes: []ReplicaView{l}}
}

func linVerdict(t *testing.T, h *History, ref *ReplicaLog) (LinearizableVerdict, string) {
	t.Helper()
	rep := HistoryLinearizable(h, ref, 0)
	if len(rep.Scopes) != 1 {
		t.Fatalf("want one scope, got %+v", rep)
	}
	return rep.Scopes[0].Verdict, rep.Scopes[0].Detail
}

func mustLin(t *testing.T, name string, h *History, ref *ReplicaLog, want LinearizableVerdict) {
	t.Helper()
	got, detail := linVerdict(t, h, ref)
	if got != want {
		t.Fatalf("%s: want %s, got %s (%s)", name, want, got, detail)
	}
	if want == LinearizableIllegal {
		t.Logf("%s: %s", name, detail)
	}
}

func subscribeOp(from uint64, n int, invokeNs, completeNs int64) HistoryOp {
	es := fixtureEntries()[from : from+uint64(n)]
	return HistoryOp{Kind: HistorySubscribe, FromOffset: from, MaxEntries: uint32(n), Entries: es, InvokeNs: invokeNs, CompleteNs: completeNs}
}

// TestHistoryLinearizableTeeth: histories broken by hand in each way the
// check exists for are illegal, and their correct twins pass.
func TestHistoryLinearizableTeeth(t *testing.T) {
	fresh := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("shipped"), Version: 2})
	addOp(fresh, HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 50, CompleteNs: 60})
	addOp(fresh, subscribeOp(0, 4, 45, 55))
	mustLin(t, "fixture with fresh reads", fresh, linRef(), LinearizableOK)

	stale := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("placed"), Version: 0})
	mustLin(t, "stale read", stale, linRef(), LinearizableIllegal)
	conc := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 25, CompleteNs: 60, Found: true, Value: []byte("placed"), Version: 0})
	mustLin(t, "older value read concurrently with the rewrite", conc, linRef(), LinearizableOK)

	staleAbsent := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 21, CompleteNs: 22})
	staleAbsent.Ops[2].InvokeNs = 25 // the delete is invoked after the read completed
	mustLin(t, "absent read before the delete was invoked", staleAbsent, linRef(), LinearizableIllegal)

	lost := fixtureHistory()
	ref := linRef()
	ref.Scopes[0].Log, ref.Scopes[0].NextOffset = ref.Scopes[0].Log[:3], 3
	mustLin(t, "acknowledged write missing from the log", lost, ref, LinearizableIllegal)
	lostRead := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("placed"), Version: 0})
	lostRead.Ops[2].Outcome = OutcomeUnknown // with offset 2 unacknowledged, the same read is fine only if 2 can come later
	mustLin(t, "unknown write landed after a read of the older value", lostRead, linRef(), LinearizableIllegal)

	never := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("cancelled"), Version: 2})
	mustLin(t, "value never written", never, linRef(), LinearizableIllegal)

	early := addOp(fixtureHistory(), subscribeOp(0, 3, 2, 15))
	mustLin(t, "record read before its write was invoked", early, linRef(), LinearizableIllegal)
	onTime := addOp(fixtureHistory(), subscribeOp(0, 3, 2, 25))
	mustLin(t, "record read once its write was invoked", onTime, linRef(), LinearizableOK)

	extra := rec("e4", put("order-1", "returned"))
	failed := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &extra, InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeFailed, Error: "NotLeader"})
	mustLin(t, "failed write in the log", failed, linRef(extra), LinearizableIllegal)
	unknown := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &extra, InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeUnknown})
	mustLin(t, "unknown write in the log", unknown, linRef(extra), LinearizableOK)
	mustLin(t, "unknown write never landed", unknown, linRef(), LinearizableOK)
	addOp(unknown, HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 61, CompleteNs: 70, Found: true, Value: []byte("returned"), Version: 4})
	mustLin(t, "read of an unknown write that is not in the log", unknown, linRef(), LinearizableIllegal)

	dup := fixtureHistory()
	mustLin(t, "a duplicated request landing twice", dup, linRef(fixtureEntries()[3].Record), LinearizableOK)
	stranger := rec("stranger")
	mustLin(t, "a record no client wrote", dup, linRef(stranger), LinearizableIllegal)

	cond := func(expected, tail uint64, out HistoryOutcome) *History {
		r := rec("c", put("x", "1"))
		r.Conditional, r.ExpectedOffset = true, expected
		op := HistoryOp{Kind: HistoryCommitIf, Record: &r, InvokeNs: 50, CompleteNs: 60, Outcome: out}
		if out == OutcomeRefused {
			op.Tail = tail
		} else {
			op.Offset = expected
		}
		return addOp(fixtureHistory(), op)
	}
	mustLin(t, "commit_if refused with the true tail", cond(2, 4, OutcomeRefused), linRef(), LinearizableOK)
	mustLin(t, "commit_if refused with a false tail", cond(2, 3, OutcomeRefused), linRef(), LinearizableIllegal)
	mustLin(t, "commit_if refused though the log is at its offset", cond(4, 4, OutcomeRefused), linRef(), LinearizableIllegal)
	mustLin(t, "commit_if written at its offset", cond(4, 0, OutcomeOK), linRef(rec("c", put("x", "1"))), LinearizableOK)
}

// TestHistoryLinearizableUnknownOnBudget: a search that runs out of steps
// is unknown — counted, not a violation, and not a pass.
func TestHistoryLinearizableUnknownOnBudget(t *testing.T) {
	h := addOp(fixtureHistory(), subscribeOp(0, 4, 45, 55))
	rep := HistoryLinearizable(h, linRef(), 3)
	if rep.Unknown != 1 || rep.OK != 0 || rep.Scopes[0].Verdict != LinearizableUnknown {
		t.Fatalf("tiny budget: want one unknown scope, got %+v", rep)
	}
	if err := rep.Err(); err != nil {
		t.Fatalf("unknown is not a violation: %v", err)
	}
	if rep := HistoryLinearizable(h, linRef(), 0); rep.OK != 1 {
		t.Fatalf("default budget: want ok, got %+v", rep)
	}
}

// TestHistoryLinearizableSkipsUnobservedRetention: a scope whose log lost
// offsets to retention that no client observed cannot be checked.
func TestHistoryLinearizableSkipsUnobservedRetention(t *testing.T) {
	h := fixtureHistory()
	h.Ops[1].Outcome = OutcomeUnknown
	ref := linRef()
	ref.Scopes[0].FirstOffset, ref.Scopes[0].Log = 2, ref.Scopes[0].Log[2:]
	if v, d := linVerdict(t, h, ref); v != LinearizableSkipped {
		t.Fatalf("want skipped, got %s (%s)", v, d)
	}
	h.Ops[1].Outcome = OutcomeOK // now offset 1 is observed: checkable
	if v, d := linVerdict(t, h, ref); v != LinearizableOK {
		t.Fatalf("want ok, got %s (%s)", v, d)
	}
}

// TestHistoryLinearizableCutsKeepVerdicts is the proof of the search cuts
// and of pooling landings: on thousands of small random histories,
// correct ones and ones broken at random, three searches give the same
// verdict: porcupine's plain search over the pooled landings, the checked
// search (pooled, with every cut), and the search with every request's
// own landings (linPerRequest: the statement that any copy of any sent
// request may land), with the pin and length cuts (its plain search
// explodes on a few of these histories). Correct histories (generated by
// running the operations in a known order, network duplicates landing at
// random times after their request's invocation) must be linearizable.
func TestHistoryLinearizableCutsKeepVerdicts(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var ok, illegal, cuts, outOfTurn, pooled, stepsPlain, stepsCut int
	for seed := uint64(1); seed <= uint64(n); seed++ {
		g := &linGen{s: seed*0x9E3779B97F4A7C15 + 1}
		h, ref, broken := g.history()
		plainScopes := linScopesOf(h, ref, linPooled, latestNsOf(h))
		perRequest := linScopesOf(h, ref, linPerRequest, latestNsOf(h))
		for i, ls := range linScopesOf(h, ref, linPooled, latestNsOf(h)) {
			if ls.skip != "" {
				if !broken {
					t.Fatalf("seed %d: scope skipped: %s", seed, ls.skip)
				}
				continue // breaking it hid an offset retention dropped
			}
			plain, plainSteps := linCheck(plainScopes[i], false, 50_000_000)
			cut, cutSteps := linCheck(ls, true, 50_000_000)
			each, _ := linCheck(perRequest[i], true, 50_000_000)
			stepsPlain += plainSteps
			stepsCut += cutSteps
			cuts += ls.spec.refusedByCut
			outOfTurn += ls.spec.refusedOutOfTurn
			pooled += perRequest[i].copies - ls.copies
			if plain != cut || plain == LinearizableUnknown || each != cut {
				t.Fatalf("seed %d: plain search says %s, cut search %s, per-request landings %s\n%s", seed, plain, cut, each, g.dump(h, ref))
			}
			if !broken && cut != LinearizableOK {
				t.Fatalf("seed %d: a correct history is %s\n%s", seed, cut, g.dump(h, ref))
			}
			if cut == LinearizableOK {
				ok++
			} else {
				illegal++
			}
		}
	}
	t.Logf("%d histories: %d linearizable, %d illegal; the cuts refused %d steps (%d out of turn) and pooling left out %d landings; %d steps plain, %d cut",
		n, ok, illegal, cuts, outOfTurn, pooled, stepsPlain, stepsCut)
	if ok < n/5 || illegal < n/10 {
		t.Fatalf("generator too lopsided: %d ok, %d illegal of %d", ok, illegal, n)
	}
	if cuts < n/4 || outOfTurn < n/100 || pooled < n/10 || stepsCut >= stepsPlain {
		t.Fatalf("the cuts barely fired (%d refusals, %d out of turn, %d landings pooled away, %d cut steps vs %d plain): the comparison proves little",
			cuts, outOfTurn, pooled, stepsCut, stepsPlain)
	}
}

// linGen makes small random histories of one scope by running operations
// in a known order (each takes effect at a point inside its interval, or
// for an unknown write at any point after its invocation) against a plain
// list-of-records log written here from the spec, then optionally breaks
// one answer.
type linGen struct{ s uint64 }

func (g *linGen) next() uint64 {
	g.s ^= g.s << 13
	g.s ^= g.s >> 7
	g.s ^= g.s << 17
	return g.s
}

func (g *linGen) intn(n int) int { return int(g.next() % uint64(n)) }

// linGenOp is one generated operation and the moment it takes effect.
type linGenOp struct {
	op    HistoryOp
	atNs  int64
	lands bool // a write that takes effect
	// dupsAtNs are the moments network duplicates of the request land
	// (after its invocation, before, between or after its own effect).
	dupsAtNs []int64
}

func (g *linGen) history() (*History, *ReplicaLog, bool) {
	n := 2 + g.intn(6)
	ops := make([]*linGenOp, n)
	for i := range ops {
		ops[i] = g.op(i)
	}
	for i := 0; i < n; i++ { // a write of unknown outcome may be re-sent
		if o := ops[i]; o.op.Kind == HistoryCommit && o.op.Outcome == OutcomeUnknown && g.intn(2) == 0 {
			r := &linGenOp{op: HistoryOp{Kind: HistoryCommit, Record: o.op.Record, RetryOf: uint64(i + 1),
				InvokeNs: o.op.CompleteNs + int64(g.intn(5)), Outcome: OutcomeOK}, lands: true}
			r.atNs = r.op.InvokeNs + int64(g.intn(6))
			r.op.CompleteNs = r.atNs + int64(g.intn(6))
			g.outcome(r)
			ops = append(ops, r)
		}
	}
	log := g.run(ops)
	h := &History{}
	for i, o := range ops {
		o.op.ID, o.op.Scope = uint64(i+1), testScope
		h.Ops = append(h.Ops, o.op)
	}
	l := ReplicaView{Scope: testScope, NextOffset: uint64(len(log))}
	for i := range log {
		l.Log = append(l.Log, ViewEntryOf(uint64(i), &log[i]))
	}
	ref := &ReplicaLog{Scopes: []ReplicaView{l}}
	if k := observedPrefix(h); k > 0 && g.intn(3) == 0 { // retention drops what clients saw
		ref.Scopes[0].FirstOffset, ref.Scopes[0].Log = k, ref.Scopes[0].Log[k:]
	}
	broken := g.intn(100) < 60
	if broken {
		g.breakOne(h, ref)
	}
	return h, ref, broken
}

// op draws one operation's kind, record and interval.
func (g *linGen) op(i int) *linGenOp {
	call := int64(g.intn(30))
	at := call + int64(g.intn(6))
	o := &linGenOp{op: HistoryOp{InvokeNs: call, CompleteNs: at + int64(g.intn(6)), Outcome: OutcomeOK}, atNs: at}
	keys := []string{"a", "b"}
	switch k := g.intn(100); {
	case k < 45:
		r := rec(fmt.Sprintf("p%d", i), put(keys[g.intn(2)], fmt.Sprintf("v%d", i)))
		if g.intn(4) == 0 {
			r = rec(fmt.Sprintf("p%d", i), del(keys[g.intn(2)]))
		}
		o.op.Kind, o.op.Record, o.lands = HistoryCommit, &r, true
		if g.intn(5) == 0 {
			o.op.Kind = HistoryCommitIf
		}
		g.outcome(o)
	case k < 72:
		o.op.Kind, o.op.Key = HistoryStateGet, keys[g.intn(2)]
	default:
		o.op.Kind, o.op.MaxEntries = HistorySubscribe, uint32(1+g.intn(3))
	}
	return o
}

// outcome draws how a write ends: ok, unknown (landing or not, maybe
// after its answer), failed, and now and then a duplicate that lands again.
func (g *linGen) outcome(o *linGenOp) {
	switch k := g.intn(100); {
	case k < 25:
		o.op.Outcome, o.lands = OutcomeUnknown, g.intn(2) == 0
		o.atNs = o.op.InvokeNs + int64(g.intn(40))
	case k < 30:
		o.op.Outcome, o.lands = OutcomePending, g.intn(2) == 0
		o.op.CompleteNs = 0
		o.atNs = o.op.InvokeNs + int64(g.intn(40))
	case k < 34:
		o.op.Outcome, o.lands = OutcomeFailed, false
	}
	if o.op.Outcome != OutcomeFailed && !o.op.Kind.IsConditional() && g.intn(6) == 0 {
		for n := 1 + g.intn(2); n > 0; n-- {
			o.dupsAtNs = append(o.dupsAtNs, o.op.InvokeNs+int64(g.intn(40)))
		}
	}
}

// linGenEffect is one step of a generated run: an operation's effect, or
// (dup) a network duplicate of its request landing.
type linGenEffect struct {
	atNs int64
	op   int
	dup  bool
}

// run applies the operations' effects and their duplicates' landings in
// order of time to a list of records and fills in every answer.
func (g *linGen) run(ops []*linGenOp) []felix.Record {
	var order []linGenEffect
	for i, o := range ops {
		order = append(order, linGenEffect{atNs: o.atNs, op: i})
		for _, at := range o.dupsAtNs {
			order = append(order, linGenEffect{atNs: at, op: i, dup: true})
		}
	}
	for i := 1; i < len(order); i++ { // insertion sort by time, stable
		for j := i; j > 0 && order[j].atNs < order[j-1].atNs; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var log []felix.Record
	for _, e := range order {
		if e.dup {
			log = append(log, *ops[e.op].op.Record)
			continue
		}
		log = g.apply(ops[e.op], log)
	}
	return log
}

func (g *linGen) apply(o *linGenOp, log []felix.Record) []felix.Record {
	op := &o.op
	tail := uint64(len(log))
	switch op.Kind {
	case HistoryCommit:
		if o.lands {
			op.Offset = tail
			return append(log, *op.Record)
		}
	case HistoryCommitIf:
		op.Record.Conditional, op.Record.ExpectedOffset = true, tail
		if g.intn(3) == 0 && tail > 0 {
			op.Record.ExpectedOffset = tail - 1
		}
		if op.Record.ExpectedOffset != tail {
			if op.Outcome == OutcomeOK {
				op.Outcome, op.Tail = OutcomeRefused, tail
			}
			return log
		}
		if o.lands {
			op.Offset = tail
			return append(log, *op.Record)
		}
	case HistoryStateGet:
		for i := len(log) - 1; i >= 0; i-- {
			for j := len(log[i].Ops) - 1; j >= 0; j-- {
				if w := log[i].Ops[j]; w.Key == op.Key {
					if w.Kind != felix.OpDelete {
						op.Found, op.Value, op.Version = true, w.Value, uint64(i)
					}
					return log
				}
			}
		}
	case HistorySubscribe:
		op.FromOffset = uint64(g.intn(len(log) + 1))
		for off := op.FromOffset; off < tail && len(op.Entries) < int(op.MaxEntries); off++ {
			op.Entries = append(op.Entries, felix.Entry{Offset: off, Record: log[off]})
		}
	}
	return log
}

// breakOne changes one answer, one interval or the final log.
func (g *linGen) breakOne(h *History, ref *ReplicaLog) {
	op := &h.Ops[g.intn(len(h.Ops))]
	l := &ref.Scopes[0]
	switch g.intn(7) {
	case 0:
		op.Offset++
		op.Tail++
	case 1:
		op.Found, op.Version = !op.Found, op.Version+1
		op.Value = []byte("x")
	case 2:
		if len(op.Entries) > 0 {
			op.Entries[0].Offset++
		} else {
			op.Version++
		}
	case 3: // the operation ends before it began, in effect
		op.InvokeNs, op.CompleteNs = op.InvokeNs+20, op.InvokeNs+20
		if op.Outcome == OutcomePending {
			op.CompleteNs = 0
		}
	case 4:
		if len(l.Log) > 0 {
			l.Log, l.NextOffset = l.Log[:len(l.Log)-1], l.NextOffset-1
		}
	case 5:
		if op.Kind.IsWrite() && op.Outcome == OutcomeOK {
			op.Outcome = OutcomeFailed
		} else if len(l.Log) > 1 {
			l.Log[0], l.Log[1] = l.Log[1], l.Log[0]
			l.Log[0].Offset, l.Log[1].Offset = l.FirstOffset, l.FirstOffset+1
		}
	default:
		op.CompleteNs = op.InvokeNs // answered at once: real time tightens
		if op.Outcome == OutcomePending {
			op.CompleteNs = 0
		}
	}
}

func (g *linGen) dump(h *History, ref *ReplicaLog) string {
	var b strings.Builder
	_ = EncodeHistory(&b, h)
	s := b.String()
	for _, e := range ref.Scopes[0].Log {
		s += fmt.Sprintf("log %d: %s %v\n", e.Offset, e.Event, e.Ops)
	}
	return s
}

// observedPrefix is the number of leading offsets the history's
// acknowledged writes and reads observed, all of them.
func observedPrefix(h *History) uint64 {
	seen := map[uint64]bool{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsWrite() && op.Outcome == OutcomeOK {
			seen[op.Offset] = true
		}
		for _, e := range op.Entries {
			seen[e.Offset] = true
		}
	}
	k := uint64(0)
	for seen[k] {
		k++
	}
	return k
}

// TestHistoryLinearizableDuplicateBeforeRetry is the false positive of a
// request duplicated on the wire: op A's answer is lost and two copies of
// it land (offsets 4 and 5) before an acknowledged write at 6; A's retry
// is sent only after that and never lands. The retry cannot be the writer
// of either copy, so both are A's.
func TestHistoryLinearizableDuplicateBeforeRetry(t *testing.T) {
	x, e5 := rec("x", put("order-1", "returned")), rec("e5")
	h := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &x, InvokeNs: 41, CompleteNs: 50, Outcome: OutcomeUnknown})
	addOp(h, HistoryOp{Kind: HistoryCommit, Record: &e5, InvokeNs: 61, CompleteNs: 70, Offset: 6})
	addOp(h, HistoryOp{Kind: HistoryCommit, Record: &x, RetryOf: 5, InvokeNs: 80, CompleteNs: 90, Outcome: OutcomeUnknown})
	mustLin(t, "a duplicated request landing twice before its retry was sent", h, linRef(x, x, e5), LinearizableOK)
}

// TestHistoryLinearizableDuplicatesStillChecked: landings of copies are
// allowed only where some request carrying the record could have made
// them, so a duplicated or lost write no request explains stays illegal.
func TestHistoryLinearizableDuplicatesStillChecked(t *testing.T) {
	x, e5 := rec("x", put("order-1", "returned")), rec("e5")
	// x lands at 4 and 6, but offset 5 was acknowledged (at 55 ns) before
	// the only request carrying x was sent (61 ns): the copy at 4 is a
	// duplicate no request could have written.
	early := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &e5, InvokeNs: 41, CompleteNs: 55, Offset: 5})
	addOp(early, HistoryOp{Kind: HistoryCommit, Record: &x, InvokeNs: 61, CompleteNs: 70, Offset: 6})
	mustLin(t, "a copy landed before its request was sent", early, linRef(x, e5, x), LinearizableIllegal)
	// The same log is fine once the request is sent before offset 4 fills.
	early.Ops[5].InvokeNs = 35
	mustLin(t, "a network duplicate of an acknowledged write", early, linRef(x, e5, x), LinearizableOK)

	// Op A's answer is lost; its retry is acknowledged at offset 5, but
	// offset 5 holds another record: the acknowledged landing is lost
	// although A's own copy landed at 4.
	lost := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &x, InvokeNs: 41, CompleteNs: 50, Outcome: OutcomeUnknown})
	addOp(lost, HistoryOp{Kind: HistoryCommit, Record: &x, RetryOf: 5, InvokeNs: 51, CompleteNs: 60, Offset: 5})
	addOp(lost, HistoryOp{Kind: HistoryCommit, Record: &e5, InvokeNs: 51, CompleteNs: 60, Outcome: OutcomeUnknown})
	mustLin(t, "an acknowledged retry missing from the log", lost, linRef(x, e5), LinearizableIllegal)
	mustLin(t, "the same retry where it was acknowledged", lost, linRef(x, x, e5), LinearizableOK)

	// A duplicate of a refused-for-every-copy (failed) request landed.
	failed := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &x, InvokeNs: 41, CompleteNs: 50, Outcome: OutcomeFailed, Error: "InvalidRequest"})
	addOp(failed, HistoryOp{Kind: HistoryCommit, Record: &e5, InvokeNs: 41, CompleteNs: 50, Offset: 4})
	mustLin(t, "a failed request's duplicate landed", failed, linRef(e5, x), LinearizableIllegal)
}
