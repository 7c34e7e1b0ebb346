package node

import (
	"encoding/binary"
	"fmt"

	"github.com/felixsim/felixsim/wire"
)

// pendingWrite is a proposal this incarnation made for a client, awaiting
// the apply of its entry.
type pendingWrite struct {
	seq         uint64
	client      uint64
	reqID       uint64
	group       uint64
	kind        wire.RequestKind
	arrivedTick uint64
}

// pendingWrites holds proposals awaiting apply, capped by
// Config.PendingWritesMax (a write arriving when full is refused with
// Unavailable). An entry lost with a leadership change is never applied:
// it expires after the pending timeout, unanswered, and the client's call
// ends as unknown.
//
// Invariant: order lists every key of bySeq in ascending seq (= arrival)
// order, plus seqs already taken, which are skipped.
type pendingWrites struct {
	incarnation uint64
	bySeq       map[uint64]*pendingWrite
	order       []uint64
}

func newPendingWrites(incarnation uint64) pendingWrites {
	return pendingWrites{incarnation: incarnation, bySeq: map[uint64]*pendingWrite{}}
}

func (p *pendingWrites) len() int { return len(p.bySeq) }

func (p *pendingWrites) add(w *pendingWrite) {
	if _, ok := p.bySeq[w.seq]; ok {
		panic(fmt.Sprintf("pendingWrites: seq %d added twice", w.seq))
	}
	p.bySeq[w.seq] = w
	p.order = append(p.order, w.seq)
}

// take removes and returns the write proposed as (incarnation, seq), or nil.
func (p *pendingWrites) take(incarnation, seq uint64) *pendingWrite {
	if incarnation != p.incarnation {
		return nil
	}
	w := p.bySeq[seq]
	if w != nil {
		delete(p.bySeq, seq)
	}
	return w
}

// expire drops writes that arrived timeoutTicks or more ticks ago.
func (p *pendingWrites) expire(nowTick, timeoutTicks uint64) {
	i := 0
	for ; i < len(p.order); i++ {
		w := p.bySeq[p.order[i]]
		if w == nil {
			continue
		}
		if nowTick-w.arrivedTick < timeoutTicks {
			break
		}
		delete(p.bySeq, w.seq)
	}
	p.order = append(p.order[:0], p.order[i:]...)
}

// pendingRead is a state_get awaiting its ReadIndex and then the apply of
// that index.
type pendingRead struct {
	seq         uint64
	client      uint64
	reqID       uint64
	group       uint64
	tenant      string
	key         string
	arrivedTick uint64
	// index is the read index raft confirmed; valid when indexed.
	index   uint64
	indexed bool
}

// pendingReads holds state reads, capped by Config.PendingReadsMax (a read
// arriving when full is refused with Unavailable); a read whose ReadIndex
// never returns (leadership lost) expires unanswered.
//
// Invariant: order lists every key of bySeq in ascending seq order, plus
// seqs already answered or expired, which are skipped.
type pendingReads struct {
	incarnation uint64
	bySeq       map[uint64]*pendingRead
	order       []uint64
}

func newPendingReads(incarnation uint64) pendingReads {
	return pendingReads{incarnation: incarnation, bySeq: map[uint64]*pendingRead{}}
}

func (p *pendingReads) len() int { return len(p.bySeq) }

func (p *pendingReads) add(r *pendingRead) {
	if _, ok := p.bySeq[r.seq]; ok {
		panic(fmt.Sprintf("pendingReads: seq %d added twice", r.seq))
	}
	p.bySeq[r.seq] = r
	p.order = append(p.order, r.seq)
}

// readContext is the unique ReadIndex request context of a read.
func (p *pendingReads) readContext(seq uint64) []byte {
	ctx := binary.LittleEndian.AppendUint64(make([]byte, 0, 16), p.incarnation)
	return binary.LittleEndian.AppendUint64(ctx, seq)
}

// confirm records the index raft returned for a read context; contexts of
// other incarnations or of expired reads are ignored.
func (p *pendingReads) confirm(ctx []byte, index uint64) {
	if len(ctx) != 16 || binary.LittleEndian.Uint64(ctx) != p.incarnation {
		return
	}
	if r := p.bySeq[binary.LittleEndian.Uint64(ctx[8:])]; r != nil && !r.indexed {
		r.index, r.indexed = index, true
	}
}

// takeReady removes and returns, in arrival order, the reads of group
// whose index is confirmed and applied.
func (p *pendingReads) takeReady(group, applied uint64) []*pendingRead {
	var out []*pendingRead
	for _, seq := range p.order {
		r := p.bySeq[seq]
		if r != nil && r.group == group && r.indexed && r.index <= applied {
			out = append(out, r)
			delete(p.bySeq, seq)
		}
	}
	return out
}

// takeGroup removes and returns, in arrival order, every read of group.
func (p *pendingReads) takeGroup(group uint64) []*pendingRead {
	var out []*pendingRead
	for _, seq := range p.order {
		if r := p.bySeq[seq]; r != nil && r.group == group {
			out = append(out, r)
			delete(p.bySeq, seq)
		}
	}
	return out
}

// expire drops reads that arrived timeoutTicks or more ticks ago, and
// forgets answered ones.
func (p *pendingReads) expire(nowTick, timeoutTicks uint64) {
	kept := p.order[:0]
	for _, seq := range p.order {
		r := p.bySeq[seq]
		if r == nil {
			continue
		}
		if nowTick-r.arrivedTick >= timeoutTicks {
			delete(p.bySeq, seq)
			continue
		}
		kept = append(kept, seq)
	}
	p.order = kept
}
