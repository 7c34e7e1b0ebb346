package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// retainedRef is the reference log of fixtureLog retaining [first, 4),
// with the retention steps drops.
func retainedRef(first uint64, drops ...RetentionDrop) *ReplicaLog {
	ref := linRef()
	ref.Scopes[0].FirstOffset, ref.Scopes[0].Log = first, ref.Scopes[0].Log[first:]
	ref.Scopes[0].Drops = drops
	return ref
}

// TestHistoryLinearizableModelsRetention: hand-built histories over
// fixtureLog (order-1 last written at offset 2, writes completing at 10,
// 20, 30, 40 ns) whose window lost offsets 0..2. A key whose last write
// retention dropped reads absent after the retention point, by age (a
// step of its own once the log is 4 long, applied by 45 ns) or by count
// (with the write that made the log 4 long); the same absence before the
// point, a dropped value read after it, a dropped record read after it,
// an absence of a retained key and a window the steps do not explain are
// violations. Without observed steps the old verdict stands (illegal: the
// false positive the model removes).
func TestHistoryLinearizableModelsRetention(t *testing.T) {
	byAge := RetentionDrop{AtNext: 4, Below: 3, AppliedNs: 45}
	byCount := RetentionDrop{AtNext: 4, Below: 3, WithWrite: true, AppliedNs: 41}
	absentAt := func(invokeNs, completeNs int64) *History {
		return addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: invokeNs, CompleteNs: completeNs})
	}
	for _, d := range []RetentionDrop{byAge, byCount} {
		name := map[bool]string{false: "by age", true: "by count"}[d.WithWrite]
		mustLin(t, name+": dropped key absent after the point", absentAt(50, 60), retainedRef(3, d), LinearizableOK)
		mustLin(t, name+": dropped key absent before its write was even invoked", absentAt(25, 30), retainedRef(3, d), LinearizableIllegal)
		found := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 50, CompleteNs: 60, Found: true, Value: []byte("shipped"), Version: 2})
		mustLin(t, name+": dropped value read after the point", found, retainedRef(3, d), LinearizableIllegal)
		mustLin(t, name+": the value read before the point", addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1",
			InvokeNs: 32, CompleteNs: 34, Found: true, Value: []byte("shipped"), Version: 2}), retainedRef(3, d), LinearizableOK)
		fetch := HistoryOp{Kind: HistoryGroupFetch, Group: "g", Entries: fixtureEntries()[0:2], InvokeNs: 50, CompleteNs: 60}
		mustLin(t, name+": dropped record handed out by a group fetch after the point", addOp(fixtureHistory(), fetch), retainedRef(3, d), LinearizableIllegal)
		fetch.InvokeNs, fetch.CompleteNs = 32, 34
		mustLin(t, name+": the same fetch before the point", addOp(fixtureHistory(), fetch), retainedRef(3, d), LinearizableOK)
		// A subscribe is served from the leader's applied view with no
		// quorum round: a deposed leader may lag a retention step as it
		// may lag the tail, so dropped records it still holds are no
		// violation; a record that was never at its offset still is.
		mustLin(t, name+": dropped records a lagging subscriber read after the point", addOp(fixtureHistory(), subscribeOp(0, 4, 50, 60)), retainedRef(3, d), LinearizableOK)
		wrong := subscribeOp(0, 2, 50, 60)
		wrong.Entries = []felix.Entry{wrong.Entries[1], wrong.Entries[0]}
		wrong.Entries[0].Offset, wrong.Entries[1].Offset = 0, 1
		mustLin(t, name+": a subscriber read of records at offsets they never held", addOp(fixtureHistory(), wrong), retainedRef(3, d), LinearizableIllegal)
		mustLin(t, name+": retained records read after the point", addOp(fixtureHistory(), subscribeOp(3, 1, 50, 60)), retainedRef(3, d), LinearizableOK)
	}
	// By age, the step takes effect no later than a replica applied it:
	// a read invoked after that must not see the dropped value.
	late := addOp(fixtureHistory(), HistoryOp{Kind: HistoryStateGet, Key: "order-1", InvokeNs: 46, CompleteNs: 48, Found: true, Value: []byte("shipped"), Version: 2})
	mustLin(t, "by age: dropped value read after a replica applied the step", late, retainedRef(3, byAge), LinearizableIllegal)
	mustLin(t, "by age: the same read before it was applied", late, retainedRef(3, RetentionDrop{AtNext: 4, Below: 3, AppliedNs: 49}), LinearizableOK)
	// Two retain commands at one log length are two steps, each by its
	// own date: a fetch between them may hand out what only the later
	// one drops.
	between := addOp(fixtureHistory(), HistoryOp{Kind: HistoryGroupFetch, Group: "g", Entries: fixtureEntries()[1:3], InvokeNs: 50, CompleteNs: 60})
	mustLin(t, "a fetch between two steps at one length", between, retainedRef(3, RetentionDrop{AtNext: 4, Below: 1, AppliedNs: 45}, RetentionDrop{AtNext: 4, Below: 3, AppliedNs: 70}), LinearizableOK)
	mustLin(t, "the same fetch after the later step", between, retainedRef(3, RetentionDrop{AtNext: 4, Below: 1, AppliedNs: 45}, RetentionDrop{AtNext: 4, Below: 3, AppliedNs: 48}), LinearizableIllegal)
	// Any other absence is a violation: order-1 is retained in [1, 4).
	mustLin(t, "absent key whose last write is retained", absentAt(50, 60), retainedRef(1, RetentionDrop{AtNext: 4, Below: 1, AppliedNs: 45}), LinearizableIllegal)
	mustLin(t, "window the steps do not explain", fixtureHistory(), retainedRef(3, RetentionDrop{AtNext: 4, Below: 1, AppliedNs: 45}), LinearizableIllegal)
	mustLin(t, "no steps observed (retention not modelled)", absentAt(50, 60), retainedRef(3), LinearizableIllegal)
}
