package tla

import (
	"container/heap"

	"github.com/felixsim/felixsim/modeltrace"
)

// The validator's record of proposed writes (traceGroup.writes), kept only
// while a later step can still name a write: its data may be appended
// again as a leader's fresh entry (a forwarded proposal the network
// delivers late, or twice), or an entry holding it may be applied for
// the first time (the first Apply of an index recomputes its outcome from
// the write; every later Apply of the index is judged from what the first
// kept, appliedOutcome.cmd, and needs the write no more). So a write goes
// once every append of its data is resolved (first applied, or
// overwritten by another entry the group committed at its index) and the
// group has committed keepIndexes more entries since it was last named
// (proposed, appended, applied): a proposal forwarded through a paused or
// partitioned broker arrives within seconds, a few hundred entries, so a
// write outlives its last naming by 16,384 committed entries. A write
// named after it went is refused as no client's write (entry appended
// fresh or applied first) or taken as a new proposal (a Request of its
// data): neither happens in a broker's trace (TestPruningKeepsVerdicts
// replays every trace of the tests both ways), and TLC, which keeps every
// write, would differ on such a trace only.

// writeKeepIndexes is how many committed entries a write's record
// outlives its last naming by.
const writeKeepIndexes = 1 << 14

// writeLife is what keeps a write's record: how many appends of its data
// are unresolved (neither first applied nor overwritten by a committed
// entry), and the committed length or raft index it was last named at.
type writeLife struct {
	pending  int
	lastSeen uint64
}

// command is what applying an entry needs of the write it holds once the
// index was first applied: the write's kind, scope, condition, whether it
// is a commit (state operations), a retain's offset, a marker's effect,
// and its proposer's request (for the answer).
type command struct {
	kind        modeltrace.CommitKind
	scope       int
	conditional bool
	expected    uint64
	commit      bool
	retain      uint64
	// finalizes marks a feature marker of atomic_commit; order is an
	// incarnation marker's (generation * 2 + deleted).
	finalizes bool
	order     uint64
	// proposer, client and reqID name the request the write answers.
	proposer, client, reqID uint64
}

// commandOf is cw's command.
func commandOf(cw *clientWrite) command {
	w := &cw.w
	return command{kind: w.Kind, scope: cw.scope, conditional: w.Conditional, expected: w.Expected, commit: w.Ops > 0,
		retain: w.Retain, finalizes: w.Kind == modeltrace.KindFeature && w.Feature == featureAtomicCommit,
		order: uint64(w.Generation)*2 + boolOrder(w.Deleted), proposer: cw.broker, client: cw.client, reqID: cw.reqID}
}

// pruneItem is a write that may go once the committed prefix is at least
// at long.
type pruneItem struct{ at, digest uint64 }

// pruneQueue is a min-heap of pruneItems by at (then digest, so that the
// order is a function of the items alone).
type pruneQueue []pruneItem

func (q pruneQueue) Len() int { return len(q) }
func (q pruneQueue) Less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].digest < q[j].digest)
}
func (q pruneQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pruneQueue) Push(x any)   { *q = append(*q, x.(pruneItem)) }
func (q *pruneQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// noteRequest records a new write: named now.
func (g *traceGroup) noteRequest(d uint64, cw *clientWrite) {
	cw.life.lastSeen = uint64(len(g.committed))
	g.writes[d] = cw
	heap.Push(&g.pruneAt, pruneItem{at: cw.life.lastSeen + g.keepIndexes, digest: d})
}

// noteAppend records a leader's fresh entry (term, i) holding data d:
// unresolved until first applied or overwritten, unless the group already
// committed another entry at i, or already applied this one.
func (g *traceGroup) noteAppend(k entryKey, d uint64) {
	cw := g.writes[d]
	if cw == nil || d == 0 {
		return
	}
	cw.life.lastSeen = max(cw.life.lastSeen, k.index)
	if k.index <= uint64(len(g.committed)) && (g.committed[k.index-1] != modeltrace.Entry{Term: k.term, Digest: d} || g.outcomeAt(k.index).set) {
		return
	}
	cw.life.pending++
}

// resolveAppend records that an append of d was resolved (first applied,
// or overwritten by a committed entry at its index): with none left, the
// write may go keepIndexes committed entries after it was last named.
func (g *traceGroup) resolveAppend(d, index uint64) {
	cw := g.writes[d]
	if cw == nil || d == 0 || cw.life.pending == 0 {
		return
	}
	cw.life.lastSeen = max(cw.life.lastSeen, index)
	if cw.life.pending--; cw.life.pending == 0 {
		heap.Push(&g.pruneAt, pruneItem{at: cw.life.lastSeen + g.keepIndexes, digest: d})
	}
}

// resolveOverwritten resolves the appends at index i that the committed
// entry there overwrote (newly committed: i is the committed length).
func (g *traceGroup) resolveOverwritten(i uint64) {
	if i >= uint64(len(g.entries.at)) {
		return
	}
	c := g.committed[i-1]
	e := &g.entries.at[i]
	resolve := func(r *entryRec) {
		if r.used && r.proposed && r.term != c.Term {
			g.resolveAppend(r.sent.digest, i)
		}
	}
	resolve(&e.first)
	for j := range e.more {
		resolve(&e.more[j])
	}
}

// prune drops the writes no later step can name any more.
func (g *traceGroup) prune() {
	n := uint64(len(g.committed))
	for len(g.pruneAt) > 0 && g.pruneAt[0].at <= n {
		it := heap.Pop(&g.pruneAt).(pruneItem)
		if cw := g.writes[it.digest]; cw != nil && cw.life.pending == 0 && cw.life.lastSeen+g.keepIndexes <= n {
			delete(g.writes, it.digest)
		}
	}
}

// outcomeAt is what the first Apply of index i gave (set false: none yet).
func (g *traceGroup) outcomeAt(i uint64) appliedOutcome {
	if i < uint64(len(g.outcomes)) {
		return g.outcomes[i]
	}
	return appliedOutcome{}
}

// writeAt classifies the entry e at raft index i: the command of the write
// it holds, from the write's record or, once that went, from the first
// Apply of i; ok is false for an entry that holds no write known.
func (g *traceGroup) writeAt(e modeltrace.Entry, i uint64) (command, bool) {
	if cw := g.writes[e.Digest]; cw != nil && e.Digest != 0 {
		return commandOf(cw), true
	}
	if o := g.outcomeAt(i); o.set && o.digest == e.Digest && e.Digest != 0 && i <= uint64(len(g.committed)) && g.committed[i-1] == e {
		return o.cmd, true
	}
	return command{}, false
}

// KeepWrites sets how many committed entries a write's record outlives its
// last naming by (writeKeepIndexes by default), for every group the
// validator has not met yet; tests lower it to prune early.
func (v *TraceValidator) KeepWrites(indexes uint64) { v.keepIndexes = indexes }

// WriteRecords counts the write records the validator holds now, over
// every group.
func (v *TraceValidator) WriteRecords() int {
	n := 0
	for _, g := range v.groups { //det:ok a sum; no order reaches output
		n += len(g.writes)
	}
	return n
}
