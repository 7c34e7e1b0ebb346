package properties

import (
	"fmt"
	"sort"
)

// The sequential specification of one shard, as the linearizability check
// reads it. It is written here from the spec, apart from the broker's
// state machine: a shard is a log of records at offsets 0, 1, 2, …;
// commit, publish and enqueue append at the tail and answer the offset;
// commit_if and publish_if append only when the tail is the expected
// offset and are otherwise refused with the tail; state_get answers the
// value and version (offset) of the last put of the key in the log, or
// absent when the last operation on it is a delete or there is none;
// subscribe and group-fetch reads answer records at offsets the log
// holds. Retention (docs/atomic-commit.md, "the state view is the fold of
// the retained log") drops a prefix at a log position: by count as part
// of the write that overflows the window, by age as a step of its own
// between two records. After it, the dropped records cannot be read, and
// a key whose last operation was in the prefix reads absent; before it,
// nothing changes. Consumer groups (the contract model's lease rule,
// contract_model_groups.go): an ack answered ok acknowledges an offset the
// log holds (one never handed out is refused, and only a written record is
// handed out), and once it is acknowledged no group fetch hands it out
// again. The rules a state shares with the contract model are the model's
// (conditionalRefused, LeaseExpired's group rule stated once there).

// linKind is what one operation of the linearizability check does; the
// zero value is invalid.
type linKind uint8

const (
	linKindInvalid linKind = iota
	// linWrite: a write answered ok; it appends at its reported offset.
	linWrite
	// linRefused: a conditional write refused with the tail; it writes nothing.
	linRefused
	// linMaybe: a landing of a request no answer places (a write whose
	// answer was lost, a network duplicate, a copy re-sent after a
	// redirect or by a retry): it appends at the tail (a conditional one
	// only at its expected offset, else it is a no-op). It never returns,
	// so it may take effect at any point after its request's invocation,
	// or after the final read, which is never.
	linMaybe
	// linStateGet: a state_get answered ok.
	linStateGet
	// linRead: a subscribe read or group fetch answered ok: records at offsets.
	linRead
	// linFinal: the reference log read after quiesce, after every answer.
	linFinal
	// linDrop: a retention step of its own (retention by age): when the
	// log is offset long, drop the records below first.
	linDrop
	// linAck: a group ack answered ok: the offset is acknowledged.
	linAck
)

// linEntry is a record (interned) at an offset, as a read saw it.
type linEntry struct {
	offset uint64
	rec    int32
}

// linOp is one operation of one scope, the input of a porcupine step.
type linOp struct {
	kind linKind
	// id is the history operation's id; a landing carries its request's
	// id and is numbered among its record's landings by copyIdx.
	id      uint64
	copy    bool
	copyIdx int
	// rec is a write's record; conditional and expected describe commit_if.
	rec         int32
	conditional bool
	expected    uint64
	// offset is where a linWrite landed, or a linRefused's tail.
	offset uint64
	// key, found, value and version are a state_get and its answer.
	key     string
	found   bool
	value   string
	version uint64
	// lagging marks a subscribe read: the leader serves it from its
	// applied view without a quorum round, so (as it may miss the tail) it
	// may still hold records a retention step has dropped; the records it
	// saw need only have been written.
	lagging bool
	// entries are what a linRead or the linFinal read saw.
	entries []linEntry
	// group names a group fetch's (a linRead not lagging) or a linAck's
	// consumer group; a linAck acknowledges offset.
	group string
	// first and next bound the final read's window (retention may have
	// dropped the offsets below first); a linDrop drops below first when
	// the log is offset long.
	first, next uint64
	// callNs and returnNs bound the operation (returnNs is the maximum for
	// a linMaybe).
	callNs, returnNs int64
}

// linTouch is a record's last operation on one key.
type linTouch struct {
	del   bool
	value string
}

// linRecord is an interned record (offset not meaningful) and its last
// operation on each key.
type linRecord struct {
	entry ViewEntry
	touch map[string]linTouch
}

// linBuf is an append-only log buffer shared by the states that are its
// prefixes. Invariant: recs is never overwritten, only appended to, so a
// state (buf, n) always denotes recs[:n].
type linBuf struct {
	recs []int32
	// touched lists, per key, the offsets of recs whose record touches it,
	// ascending.
	touched map[string][]uint64
}

// linState is a shard's log: the first n records of buf, of which those
// below first were dropped by retention. final is true once the final
// read is linearized. acked are the group offsets acknowledged so far.
type linState struct {
	buf   *linBuf
	n     uint64
	first uint64
	final bool
	acked *linAcked
}

func lessGroupOffset(a, b groupOffsetKey) bool {
	if a.group != b.group {
		return a.group < b.group
	}
	return a.offset < b.offset
}

// linSpec is one scope's specification context: its interned records and
// the cuts the search may use.
type linSpec struct {
	recs []linRecord
	// pinned maps an offset to the only record any valid linearization can
	// append there (from an acknowledged write's offset, a read's entry or
	// the final log); pinConflict when two observations disagree.
	pinned map[uint64]int32
	// finalNext is the final log's length; hasFinal says there is one.
	hasFinal  bool
	finalNext uint64
	// pooled says a record's landings are interchangeable (linPooled), so
	// the search may take them in one fixed order; acked marks the offsets
	// acknowledged writes reported.
	pooled bool
	acked  map[uint64]bool
	// refusedByCut counts the steps the cuts refused, refusedOutOfTurn
	// those outOfTurn refused (for the proof test: cuts that never fire
	// prove nothing).
	refusedByCut, refusedOutOfTurn int
	// dropsKnown says the run observed the scope's retention steps: the
	// final read must then find the window the drops made. dropWithWrite
	// maps a log length to the first offset retention by count left when
	// a write made the log that long.
	dropsKnown    bool
	dropWithWrite map[uint64]uint64
}

// pinConflict marks an offset two observations fill with different records.
const pinConflict int32 = -1

// step is the sequential specification: whether op can take effect in s,
// and the state after it. cut adds refusals that provably never change a
// verdict (see cutRefuses).
func (sp *linSpec) step(s linState, op *linOp, cut bool) (bool, linState) {
	switch op.kind {
	case linWrite:
		if s.n != op.offset || conditionalRefused(op.conditional, op.expected, op.offset) {
			return false, s
		}
		return sp.appendIf(s, op.rec, cut)
	case linRefused:
		return s.n == op.offset && conditionalRefused(true, op.expected, op.offset), s
	case linMaybe:
		if conditionalRefused(op.conditional, op.expected, s.n) {
			return true, s // refused: no effect
		}
		if cut && sp.outOfTurn(s, op) {
			sp.refusedByCut++
			sp.refusedOutOfTurn++
			return false, s
		}
		return sp.appendIf(s, op.rec, cut)
	case linStateGet:
		found, value, version := sp.lookup(s, op.key)
		return found == op.found && (!found || value == op.value && version == op.version), s
	case linRead:
		if op.lagging {
			return sp.written(s, op.entries), s
		}
		return sp.holds(s, op.entries) && !sp.handsOutAcked(s, op), s
	case linAck:
		if op.offset >= s.n {
			return false, s // never handed out: the contract refuses the ack
		}
		s.acked = s.acked.with(op.group, op.offset)
		return true, s
	case linFinal:
		if s.final || s.n != op.next || !sp.holds(s, op.entries) || sp.dropsKnown && s.first != op.first {
			return false, s
		}
		s.final = true
		return true, s
	case linDrop:
		if s.n != op.offset {
			return false, s
		}
		s.first = max(s.first, op.first)
		return true, s
	}
	panic(fmt.Sprintf("properties: linearizability step of kind %d", op.kind))
}

// handsOutAcked reports whether group fetch op hands out an offset its
// group has acknowledged in s.
func (sp *linSpec) handsOutAcked(s linState, op *linOp) bool {
	for _, e := range op.entries {
		if s.acked.has(op.group, e.offset) {
			return true
		}
	}
	return false
}

// appendIf appends rec at the tail unless the cut refuses it.
func (sp *linSpec) appendIf(s linState, rec int32, cut bool) (bool, linState) {
	if cut && sp.cutRefuses(s, rec) {
		sp.refusedByCut++
		return false, s
	}
	return true, sp.append(s, rec)
}

// cutRefuses refuses appending rec at offset s.n when no complete
// linearization can follow: the offset is pinned to another record (an
// acknowledged write reported it, a read or the final log saw another
// record there, and records never move), or the final read is still to
// come and the log would outgrow it (logs only grow, and the final read
// needs exactly its length).
func (sp *linSpec) cutRefuses(s linState, rec int32) bool {
	if sp.hasFinal && !s.final && s.n >= sp.finalNext {
		return true
	}
	p, ok := sp.pinned[s.n]
	return ok && p != rec
}

// outOfTurn refuses, before the final read, a pooled landing that is not
// the next of its record in index order: landing j appends only once
// landings 0..j-1 have. A record's pooled landings are identical
// operations (same record, same invocation, never returning), so any
// linearization can be relabelled to take them in index order; the cut
// never changes a verdict. The landings so far are the record's entries
// in s at offsets no acknowledged write reported (an acknowledged write's
// offset holds its own record in any linearization that completes).
func (sp *linSpec) outOfTurn(s linState, op *linOp) bool {
	if !sp.pooled || s.final || op.copyIdx == 0 {
		return false
	}
	landed := 0
	for off := uint64(0); off < s.n; off++ {
		if s.buf.recs[off] == op.rec && !sp.acked[off] {
			landed++
		}
	}
	return landed != op.copyIdx
}

// append returns s with rec appended, sharing s's buffer when it can.
func (sp *linSpec) append(s linState, rec int32) linState {
	b := s.buf
	if uint64(len(b.recs)) > s.n {
		if b.recs[s.n] == rec {
			return linState{buf: b, n: s.n + 1, first: sp.firstAfterWrite(s.first, s.n+1), final: s.final, acked: s.acked}
		}
		b = sp.fork(b, s.n)
	}
	b.recs = append(b.recs, rec)
	for k := range sp.recs[rec].touch { //det:ok each key's list gets one offset; order does not matter
		b.touched[k] = append(b.touched[k], s.n)
	}
	return linState{buf: b, n: s.n + 1, first: sp.firstAfterWrite(s.first, s.n+1), final: s.final, acked: s.acked}
}

// firstAfterWrite is the first retained offset after a write made the log
// n long: retention by count moves it there when the run saw it do so.
func (sp *linSpec) firstAfterWrite(first, n uint64) uint64 {
	if f, ok := sp.dropWithWrite[n]; ok {
		return max(first, f)
	}
	return first
}

// fork copies the first n records of b into a new buffer.
func (sp *linSpec) fork(b *linBuf, n uint64) *linBuf {
	nb := &linBuf{recs: append([]int32(nil), b.recs[:n]...), touched: map[string][]uint64{}}
	for k, offs := range b.touched { //det:ok each key's list is copied alone
		i := sort.Search(len(offs), func(i int) bool { return offs[i] >= n })
		if i > 0 {
			nb.touched[k] = append([]uint64(nil), offs[:i]...)
		}
	}
	return nb
}

// lookup answers state_get of key in s: the last operation on the key,
// absent when retention dropped the record that made it.
func (sp *linSpec) lookup(s linState, key string) (found bool, value string, version uint64) {
	offs := s.buf.touched[key]
	i := sort.Search(len(offs), func(i int) bool { return offs[i] >= s.n })
	if i == 0 || offs[i-1] < s.first {
		return false, "", 0
	}
	off := offs[i-1]
	t := sp.recs[s.buf.recs[off]].touch[key]
	if t.del {
		return false, "", 0
	}
	return true, t.value, off
}

// holds reports whether s holds every entry's record at its offset, none
// dropped by retention.
func (sp *linSpec) holds(s linState, es []linEntry) bool {
	for _, e := range es {
		if e.offset < s.first {
			return false
		}
	}
	return sp.written(s, es)
}

// written reports whether s's log has held every entry's record at its
// offset, retained or since dropped.
func (sp *linSpec) written(s linState, es []linEntry) bool {
	for _, e := range es {
		if e.offset >= s.n || s.buf.recs[e.offset] != e.rec {
			return false
		}
	}
	return true
}

// equal reports whether two states hold the same log and the same final flag.
func (sp *linSpec) equal(a, b linState) bool {
	if a.n != b.n || a.first != b.first || a.final != b.final || !a.acked.equal(b.acked) {
		return false
	}
	if a.buf == b.buf {
		return true
	}
	for i := uint64(0); i < a.n; i++ {
		if a.buf.recs[i] != b.buf.recs[i] {
			return false
		}
	}
	return true
}

// initial is the empty log.
func (sp *linSpec) initial() linState {
	return linState{buf: &linBuf{touched: map[string][]uint64{}}}
}

// describe renders an operation for a violation message.
func (sp *linSpec) describe(op *linOp) string {
	switch op.kind {
	case linWrite:
		return fmt.Sprintf("op %d (write %s → ok at offset %d)", op.id, describeRecord(&sp.recs[op.rec].entry), op.offset)
	case linRefused:
		return fmt.Sprintf("op %d (conditional write %s at %d → refused, tail %d)", op.id, describeRecord(&sp.recs[op.rec].entry), op.expected, op.offset)
	case linMaybe:
		return fmt.Sprintf("a landing of write %s (earliest request: op %d)", describeRecord(&sp.recs[op.rec].entry), op.id)
	case linStateGet:
		if !op.found {
			return fmt.Sprintf("op %d (state_get %s → absent)", op.id, op.key)
		}
		return fmt.Sprintf("op %d (state_get %s → %q at version %d)", op.id, op.key, op.value, op.version)
	case linRead:
		if !op.lagging {
			return fmt.Sprintf("op %d (group %q fetch of %d record(s) from offset %d)", op.id, op.group, len(op.entries), firstOffsetOf(op.entries))
		}
		return fmt.Sprintf("op %d (read of %d record(s) from offset %d)", op.id, len(op.entries), firstOffsetOf(op.entries))
	case linFinal:
		return fmt.Sprintf("the final read of the reference log (offsets %d..%d)", op.first, op.next)
	case linDrop:
		return fmt.Sprintf("retention by age dropping offsets below %d when the log was %d long", op.first, op.offset)
	case linAck:
		return fmt.Sprintf("op %d (group %q ack of offset %d → ok)", op.id, op.group, op.offset)
	}
	return fmt.Sprintf("op %d (kind %d)", op.id, op.kind)
}

func firstOffsetOf(es []linEntry) uint64 {
	if len(es) == 0 {
		return 0
	}
	return es[0].offset
}
