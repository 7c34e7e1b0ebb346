package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

var testScope = felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 1}

func put(k, v string) felix.StateOp {
	return felix.StateOp{Kind: felix.OpPut, Key: k, Value: []byte(v)}
}
func del(k string) felix.StateOp { return felix.StateOp{Kind: felix.OpDelete, Key: k} }

func rec(payload string, ops ...felix.StateOp) felix.Record {
	return felix.Record{Event: felix.EventPublish, Payload: []byte(payload), Ops: ops}
}

// cond is r as a conditional write's record expecting offset expected.
func cond(r felix.Record, expected uint64) *felix.Record {
	r.Conditional, r.ExpectedOffset = true, expected
	return &r
}

// fixtureEntries are one scope's records as clients saw them: order-1
// placed at 0, cart-1 put at 1, order-1 shipped and cart-1 deleted at 2,
// a plain publish at 3.
func fixtureEntries() []felix.Entry {
	es := []felix.Record{
		rec("e0", put("order-1", "placed")),
		rec("e1", put("cart-1", "items")),
		rec("e2", put("order-1", "shipped"), del("cart-1")),
		rec("e3"),
	}
	var out []felix.Entry
	for i, r := range es {
		out = append(out, felix.Entry{Offset: uint64(i), Record: r})
	}
	return out
}

// fixtureLog is a replica's log of fixtureEntries.
func fixtureLog() ReplicaView {
	es := fixtureEntries()
	l := ReplicaView{Scope: testScope, NextOffset: uint64(len(es))}
	for i := range es {
		l.Log = append(l.Log, ViewEntryOf(es[i].Offset, &es[i].Record))
	}
	return l
}

func replicas(n int) []ReplicaLog {
	var out []ReplicaLog
	for i := 1; i <= n; i++ {
		out = append(out, ReplicaLog{Node: uint64(i), Scopes: []ReplicaView{fixtureLog()}})
	}
	return out
}

// fixtureHistory is what clients saw of fixtureLog: every write acked at
// its offset, completed at 10*(offset+1) ns.
func fixtureHistory() *History {
	h := &History{}
	l := fixtureEntries()
	for i := range l {
		r := l[i].Record
		h.Ops = append(h.Ops, HistoryOp{ID: uint64(i + 1), Kind: HistoryCommit, Scope: testScope, Record: &r,
			InvokeNs: int64(10*i + 1), CompleteNs: int64(10 * (i + 1)), Outcome: OutcomeOK, Offset: uint64(i)})
	}
	return h
}

func addOp(h *History, op HistoryOp) *History {
	op.ID = uint64(len(h.Ops) + 1)
	op.Scope = testScope
	if op.Outcome == 0 {
		op.Outcome = OutcomeOK
	}
	h.Ops = append(h.Ops, op)
	return h
}

func mustHold(t *testing.T, name string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: want no violation, got %v", name, err)
	}
}

func mustFail(t *testing.T, name string, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: want a violation mentioning %q, got %v", name, want, err)
	}
}

func TestHistoryAckedOnEveryReplica(t *testing.T) {
	mustHold(t, "all replicas whole", HistoryAckedOnEveryReplica(fixtureHistory(), replicas(3)))

	rs := replicas(3)
	rs[1].Scopes[0].Log[2].Ops = rs[1].Scopes[0].Log[2].Ops[:1] // a missing delete
	mustFail(t, "replica with half a commit", HistoryAckedOnEveryReplica(fixtureHistory(), rs), "broker 2 holds a different record")

	rs = replicas(3)
	rs[2].Scopes[0].Log = rs[2].Scopes[0].Log[:2]
	rs[2].Scopes[0].NextOffset = 2
	mustFail(t, "acknowledged offset missing on one replica", HistoryAckedOnEveryReplica(fixtureHistory(), rs), "broker 3's log ends before it")

	rs = replicas(2)
	rs[0].Scopes = nil
	mustFail(t, "scope missing", HistoryAckedOnEveryReplica(fixtureHistory(), rs), "holds no log")
	mustFail(t, "no replicas", HistoryAckedOnEveryReplica(fixtureHistory(), nil), "no replica")

	h := fixtureHistory()
	h.Ops[3].Offset = 2 // acknowledged at the wrong offset
	mustFail(t, "wrong acknowledged offset", HistoryAckedOnEveryReplica(h, replicas(1)), "different record")

	h = fixtureHistory()
	h.Ops[1].Outcome, h.Ops[1].Offset = OutcomeUnknown, 99 // unknown outcomes claim nothing
	mustHold(t, "unknown outcome", HistoryAckedOnEveryReplica(h, replicas(3)))
}

func TestHistoryReadsLinearizable(t *testing.T) {
	ref := &ReplicaLog{Scopes: []ReplicaView{fixtureLog()}}
	// After all four writes were acknowledged (at 40 ns): order-1 is shipped at 2, cart-1 deleted.
	fresh := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("shipped"), Version: 2})
	addOp(fresh, HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 50, CompleteNs: 60})
	mustHold(t, "fresh reads", HistoryReadsLinearizable(fresh, ref))

	// A read concurrent with the shipping commit may see either value.
	conc := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 25, CompleteNs: 60, Found: true, Value: []byte("placed"), Version: 0})
	mustHold(t, "concurrent read of the older value", HistoryReadsLinearizable(conc, ref))

	stale := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("placed"), Version: 0})
	mustFail(t, "stale value after an acknowledged rewrite", HistoryReadsLinearizable(stale, ref), "offset 2")

	staleAbsent := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60})
	mustFail(t, "absent after an acknowledged put", HistoryReadsLinearizable(staleAbsent, ref), "found nothing")

	// cart-1 was put at offset 1 (acknowledged at 20 ns) and is deleted at
	// offset 2, by a commit invoked at 25 ns. An absent read over 21..22 ns
	// is stale: the delete cannot have been applied before it completed
	// (the shape of --defects stale-read --seed 11). Over 21..30 ns the
	// read is concurrent with the delete and may see it.
	lateDelete := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 21, CompleteNs: 22})
	lateDelete.Ops[2].InvokeNs = 25
	mustFail(t, "absent before the delete was invoked", HistoryReadsLinearizable(lateDelete, ref), "after the read completed")
	concDelete := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 21, CompleteNs: 30})
	concDelete.Ops[2].InvokeNs = 25
	mustHold(t, "absent concurrent with the delete", HistoryReadsLinearizable(concDelete, ref))

	future := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 2, CompleteNs: 5, Found: true, Value: []byte("shipped"), Version: 2})
	mustFail(t, "value of a write invoked after the read completed", HistoryReadsLinearizable(future, ref), "from the future")

	staleCart := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("items"), Version: 1})
	mustFail(t, "deleted key still read", HistoryReadsLinearizable(staleCart, ref), "rewrote the key")
}

func TestHistoryReadVersionIsOffset(t *testing.T) {
	ref := &ReplicaLog{Scopes: []ReplicaView{fixtureLog()}}
	good := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("shipped"), Version: 2})
	mustHold(t, "version is the writing offset", HistoryReadVersionIsOffset(good, ref))

	offByOne := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("shipped"), Version: 3})
	mustFail(t, "version off by one", HistoryReadVersionIsOffset(offByOne, ref), "does not touch the key")

	wrongValue := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("placed"), Version: 2})
	mustFail(t, "value not the record's", HistoryReadVersionIsOffset(wrongValue, ref), `puts "shipped"`)

	deleted := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "cart-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("items"), Version: 2})
	mustFail(t, "value at a deleting version", HistoryReadVersionIsOffset(deleted, ref), "deletes the key")

	future := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("x"), Version: 9})
	mustFail(t, "version past the log", HistoryReadVersionIsOffset(future, ref), "log ends before it")
}

func TestHistoryReadersSeeWholeRecords(t *testing.T) {
	ref := &ReplicaLog{Scopes: []ReplicaView{fixtureLog()}}
	l := fixtureEntries()
	good := addOp(fixtureHistory(), HistoryOp{Kind: HistorySubscribe, FromOffset: 1, MaxEntries: 8, InvokeNs: 50, CompleteNs: 60, Entries: l[1:]})
	addOp(good, HistoryOp{Kind: HistoryGroupFetch, Group: "g", InvokeNs: 50, CompleteNs: 60, Entries: l[2:3]})
	mustHold(t, "whole records", HistoryReadersSeeWholeRecords(good, ref))

	half := fixtureEntries()[2:3]
	half[0].Record.Ops = half[0].Record.Ops[:1]
	partial := addOp(fixtureHistory(), HistoryOp{Kind: HistoryGroupFetch, Group: "g", InvokeNs: 50, CompleteNs: 60, Entries: half})
	mustFail(t, "event without all its state", HistoryReadersSeeWholeRecords(partial, ref), "1 state ops vs 2")

	noState := fixtureEntries()[0:1]
	noState[0].Record.Ops = nil
	eventOnly := addOp(fixtureHistory(), HistoryOp{Kind: HistorySubscribe, MaxEntries: 8, InvokeNs: 50, CompleteNs: 60, Entries: noState})
	mustFail(t, "event without its state", HistoryReadersSeeWholeRecords(eventOnly, ref), "0 state ops vs 1")

	gap := addOp(fixtureHistory(), HistoryOp{Kind: HistorySubscribe, FromOffset: 0, MaxEntries: 8, InvokeNs: 50, CompleteNs: 60, Entries: []felix.Entry{l[0], l[2]}})
	mustFail(t, "subscriber gap", HistoryReadersSeeWholeRecords(gap, ref), "gap")
}

func TestHistoryConditionalWrites(t *testing.T) {
	ref := &ReplicaLog{Scopes: []ReplicaView{fixtureLog()}}
	other := rec("never-written", put("order-1", "x"))
	h := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommitIf, Record: cond(other, 2), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 4})
	mustHold(t, "refusal with the true tail, nothing written", HistoryConditionalWrites(h, ref))

	written := fixtureEntries()[3].Record
	leaked := addOp(fixtureHistory(), HistoryOp{Kind: HistoryPublishIf, Record: cond(written, 1), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 4})
	mustFail(t, "refused but written", HistoryConditionalWrites(leaked, ref), "its record is in the log at offset 3")

	twin := addOp(fixtureHistory(), HistoryOp{Kind: HistoryPublishIf, Record: cond(written, 3), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 4})
	mustHold(t, "refusal answering a duplicated request's twin", HistoryConditionalWrites(twin, ref))

	lying := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommitIf, Record: cond(other, 4), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 4})
	mustFail(t, "refused at the true tail", HistoryConditionalWrites(lying, ref), "equal to its expected offset")

	beyond := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommitIf, Record: cond(other, 1), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 9})
	mustFail(t, "tail beyond the log", HistoryConditionalWrites(beyond, ref), "beyond the log's end")

	stale := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommitIf, Record: cond(other, 1), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 2})
	mustFail(t, "refused with a tail older than an acknowledged write", HistoryConditionalWrites(stale, ref), "offset 3 was acknowledged before")

	misplaced := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommitIf, Record: cond(written, 2), InvokeNs: 50, CompleteNs: 60, Offset: 3})
	mustFail(t, "written away from its expected offset", HistoryConditionalWrites(misplaced, ref), "written at 3, expected 2")
}

func TestHistoryWritesRespectRealTime(t *testing.T) {
	ref := &ReplicaLog{Scopes: []ReplicaView{fixtureLog()}}
	mustHold(t, "log order follows acknowledgements", HistoryWritesRespectRealTime(fixtureHistory(), ref))

	h := fixtureHistory()
	h.Ops[0].InvokeNs, h.Ops[0].CompleteNs = 35, 36 // offset 0 invoked after offset 2 was acknowledged (at 30)
	mustFail(t, "earlier offset for a later write", HistoryWritesRespectRealTime(h, ref), "sits at the lower offset 0")

	// An unknown write that landed takes part by its invocation.
	u := fixtureHistory()
	u.Ops[1].Outcome, u.Ops[1].Offset, u.Ops[1].InvokeNs, u.Ops[1].CompleteNs = OutcomeUnknown, 0, 45, 46
	mustFail(t, "unknown write landed before an earlier acknowledgement", HistoryWritesRespectRealTime(u, ref), "op 2")

	// A retry invoked late shares its payload with an original invoked
	// early: the copy in the log may be the original's, so no violation.
	r := fixtureHistory()
	r.Ops[1].Outcome, r.Ops[1].Offset, r.Ops[1].InvokeNs, r.Ops[1].CompleteNs = OutcomeUnknown, 0, 11, 44
	rec1 := *r.Ops[1].Record
	addOp(r, HistoryOp{Kind: HistoryCommit, Record: &rec1, RetryOf: 2, InvokeNs: 45, CompleteNs: 90, Outcome: OutcomeUnknown})
	mustHold(t, "retry sharing its original's copy", HistoryWritesRespectRealTime(r, ref))

	// Concurrent writes may land in either order.
	c := fixtureHistory()
	c.Ops[0].InvokeNs, c.Ops[0].CompleteNs = 5, 100
	mustHold(t, "concurrent writes", HistoryWritesRespectRealTime(c, ref))
}

func TestHistoryReadsMonotonic(t *testing.T) {
	ok := addOp(&History{}, HistoryOp{Kind: HistoryStateGet, Key: "k", InvokeNs: 1, CompleteNs: 2, Found: true, Version: 3})
	addOp(ok, HistoryOp{Kind: HistoryStateGet, Key: "k", InvokeNs: 3, CompleteNs: 4, Found: true, Version: 5})
	addOp(ok, HistoryOp{Kind: HistoryStateGet, Key: "k", InvokeNs: 1, CompleteNs: 9, Found: true, Version: 2}) // concurrent with both
	addOp(ok, HistoryOp{Kind: HistoryStateGet, Key: "other", InvokeNs: 5, CompleteNs: 6, Found: true, Version: 1})
	mustHold(t, "versions grow in real time", HistoryReadsMonotonic(ok))

	back := addOp(&History{}, HistoryOp{Kind: HistoryStateGet, Key: "k", InvokeNs: 1, CompleteNs: 2, Found: true, Version: 5})
	addOp(back, HistoryOp{Kind: HistoryStateGet, Key: "k", InvokeNs: 3, CompleteNs: 4, Found: true, Version: 3})
	mustFail(t, "a later read returns an older version", HistoryReadsMonotonic(back), "older than version 5")
}

func TestHistoryNotSentWroteNothing(t *testing.T) {
	r := rec("cross-stream", put("order-1", "x"))
	h := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &r, InvokeNs: 50, CompleteNs: 50, Outcome: OutcomeFailed, NotSent: true, Error: "NotOnOwningShard"})
	mustHold(t, "refused commit nowhere", HistoryNotSentWroteNothing(h, replicas(3)))

	leaked := fixtureEntries()[3].Record
	bad := addOp(fixtureHistory(), HistoryOp{Kind: HistoryCommit, Record: &leaked, InvokeNs: 50, CompleteNs: 50, Outcome: OutcomeFailed, NotSent: true, Error: "NotOnOwningShard"})
	mustFail(t, "refused commit in the log", HistoryNotSentWroteNothing(bad, replicas(2)), "yet broker 1 holds its record")

	if err := (&HistoryOp{ID: 1, Kind: HistoryCommit, Record: &r, InvokeNs: 1, CompleteNs: 2, Outcome: OutcomeFailed, NotSent: true}).Validate(); err == nil {
		t.Fatal("a not-sent op that took time accepted")
	}
}
