package node

import "testing"

// TestPendingWritesMatchTheIncarnation: a restarted broker's seqs start
// again, so an entry its earlier incarnation proposed may carry the seq of
// a write pending now. take matches the incarnation too and leaves that
// write pending; sharesSeq reports the collision (PathSeqOfEarlierIncarnation),
// and only for an entry of another incarnation whose seq is pending.
func TestPendingWritesMatchTheIncarnation(t *testing.T) {
	p := newPendingWrites(2)
	p.add(&pendingWrite{seq: 5, client: 7, reqID: 1, group: 2, write: true})
	if !p.sharesSeq(1, 5) {
		t.Fatal("an earlier incarnation's seq 5, pending now, not reported")
	}
	if w := p.take(1, 5); w != nil || p.len() != 1 {
		t.Fatalf("the earlier incarnation's entry took the pending write %+v", w)
	}
	if p.sharesSeq(2, 5) || p.sharesSeq(1, 6) {
		t.Fatal("a collision reported for this incarnation's own entry, or a seq not pending")
	}
	if w := p.take(2, 5); w == nil || w.client != 7 || p.sharesSeq(1, 5) {
		t.Fatalf("this incarnation's entry did not take its write: %+v", w)
	}
}
