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
	arrivedTick uint64
	// write marks a record write (not a group command or a trim).
	write bool
	// again is what the ReproposePending defect proposes again; nil
	// unless that defect is on.
	again *reproposal
}

// pendingItem is what a pending table needs of an entry: the seq this
// incarnation gave it on arrival and the tick it arrived at.
type pendingItem interface {
	comparable
	pendingSeq() uint64
	pendingArrivedTick() uint64
}

// pendingTable holds requests awaiting raft in arrival order, keyed by seq.
// Seqs and arrival ticks both rise with arrival, so the expired entries are
// always the oldest.
//
// Invariant: order lists every key of bySeq in ascending seq (= arrival)
// order, plus seqs already taken, which are skipped and dropped by expire.
type pendingTable[T pendingItem] struct {
	incarnation uint64
	bySeq       map[uint64]T
	order       []uint64
}

func newPendingTable[T pendingItem](incarnation uint64) pendingTable[T] {
	return pendingTable[T]{incarnation: incarnation, bySeq: map[uint64]T{}}
}

func (p *pendingTable[T]) len() int { return len(p.bySeq) }

func (p *pendingTable[T]) add(x T) {
	seq := x.pendingSeq()
	if _, ok := p.bySeq[seq]; ok {
		panic(fmt.Sprintf("pending %T: seq %d added twice", x, seq))
	}
	p.bySeq[seq] = x
	p.order = append(p.order, seq)
}

// takeWhere removes and returns, in arrival order, every entry keep accepts.
func (p *pendingTable[T]) takeWhere(keep func(T) bool) []T {
	var out []T
	for _, seq := range p.order {
		if x, ok := p.bySeq[seq]; ok && keep(x) {
			out = append(out, x)
			delete(p.bySeq, seq)
		}
	}
	return out
}

// expire drops entries that arrived timeoutTicks or more ticks ago, and
// forgets the seqs of taken ones.
func (p *pendingTable[T]) expire(nowTick, timeoutTicks uint64) {
	kept := p.order[:0]
	for _, seq := range p.order {
		x, ok := p.bySeq[seq]
		if !ok {
			continue
		}
		if nowTick-x.pendingArrivedTick() >= timeoutTicks {
			delete(p.bySeq, seq)
			continue
		}
		kept = append(kept, seq)
	}
	p.order = kept
}

// pendingWrites holds proposals awaiting apply, capped by
// Config.PendingWritesMax (a write arriving when full is refused with
// Unavailable). An entry lost with a leadership change is never applied:
// it expires after the pending timeout, unanswered, and the client's call
// ends as unknown.
type pendingWrites struct {
	pendingTable[*pendingWrite]
}

func newPendingWrites(incarnation uint64) pendingWrites {
	return pendingWrites{newPendingTable[*pendingWrite](incarnation)}
}

func (w *pendingWrite) pendingSeq() uint64         { return w.seq }
func (w *pendingWrite) pendingArrivedTick() uint64 { return w.arrivedTick }

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

// sharesSeq reports whether an entry proposed as (incarnation, seq) by an
// earlier incarnation of this node carries the seq of a write pending in
// this one: the seq alone would name the wrong write, so take must (and
// does) match the incarnation too.
func (p *pendingWrites) sharesSeq(incarnation, seq uint64) bool {
	return incarnation != p.incarnation && p.bySeq[seq] != nil
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
	// atArrival is the value the StateReadValueAtArrival defect looked up
	// when the read arrived (nil otherwise).
	atArrival *wire.StateValue
}

// pendingReads holds state reads, capped by Config.PendingReadsMax (a read
// arriving when full is refused with Unavailable); a read whose ReadIndex
// never returns (leadership lost) expires unanswered.
type pendingReads struct {
	pendingTable[*pendingRead]
}

func newPendingReads(incarnation uint64) pendingReads {
	return pendingReads{newPendingTable[*pendingRead](incarnation)}
}

func (r *pendingRead) pendingSeq() uint64         { return r.seq }
func (r *pendingRead) pendingArrivedTick() uint64 { return r.arrivedTick }

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
	return p.takeWhere(func(r *pendingRead) bool { return r.group == group && r.indexed && r.index <= applied })
}

// takeGroup removes and returns, in arrival order, every read of group.
func (p *pendingReads) takeGroup(group uint64) []*pendingRead {
	return p.takeWhere(func(r *pendingRead) bool { return r.group == group })
}

// takeGroupWrites removes and returns, in arrival order, every record
// write pending on group.
func (p *pendingWrites) takeGroupWrites(group uint64) []*pendingWrite {
	return p.takeWhere(func(w *pendingWrite) bool { return w.group == group && w.write })
}
