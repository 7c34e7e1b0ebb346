package properties

import "testing"

// TestHistoryLinearizableGroupAcks: an acknowledged offset is never handed
// out by a fetch linearized after the ack. The fetch below overlaps the
// ack in real time, so GroupAckedNotRedelivered (which needs the ack
// answered before the fetch was sent) cannot judge it; but the fetch also
// hands out offset 3, written only after the ack had answered, so every
// linearization puts it after the ack. Handing out offset 2 again is
// illegal; its twin handing out 3 alone passes; an ack of an offset never
// written is illegal too (the contract refuses it).
func TestHistoryLinearizableGroupAcks(t *testing.T) {
	build := func(fetched ...uint64) *History {
		h := fixtureHistory()
		h.Ops[2].InvokeNs, h.Ops[2].CompleteNs = 40, 45 // offset 2
		h.Ops[3].InvokeNs, h.Ops[3].CompleteNs = 51, 52 // offset 3
		addOp(h, HistoryOp{Kind: HistoryGroupAck, Group: testGroup, AckOffset: 2, InvokeNs: 10, CompleteNs: 50})
		f := groupFetchOp(0, 20, 60, fetched...)
		addOp(h, f)
		return h
	}
	mustLin(t, "a fetch after the ack hands out offset 3 only", build(3), linRef(), LinearizableOK)
	broken := build(2, 3)
	mustLin(t, "a fetch after the ack hands out the acked offset 2", broken, linRef(), LinearizableIllegal)
	if err := HistoryGroupAckedNotRedelivered(broken); err != nil {
		t.Fatalf("the real-time rule judges the overlap after all: %v", err)
	}
	early := fixtureHistory()
	addOp(early, HistoryOp{Kind: HistoryGroupAck, Group: testGroup, AckOffset: 3, InvokeNs: 2, CompleteNs: 5})
	mustLin(t, "an ack of an offset not yet written", early, linRef(), LinearizableIllegal)
}
