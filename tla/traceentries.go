package tla

// The entries leaders sent (the AppendEntries messages trace mode keeps)
// and the brokers that stored each (their acknowledgements), per raft
// entry (term, index), for one group. A group's indexes are dense from 1:
// a Persist starts at most one past the broker's stored log and a
// Restart's stored log lists its entries one by one, so every index
// recorded is at most the trace's longest log, and a slice indexed by raft
// index finds an index's entries without hashing a key. The terms seen at
// one index are few: one, unless a new leader overwrote an uncommitted
// suffix. Nothing is ever removed, as nothing was from the maps keyed by
// (term, index) and (term, index, broker) this replaces: a message once
// sent may still arrive, and an acknowledgement once sent still counts.

// ackBitsMax is how many broker ids have a bit in entryRec.acked; an
// acknowledgement of a broker with a larger id goes to entryTable.acksWide.
const ackBitsMax = 64

// ackKey is broker b's acknowledgement of holding entry (term, index).
type ackKey struct{ term, index, broker uint64 }

// entryRec is what is known of entry (term, index) at its index.
type entryRec struct {
	term uint64
	// sent is what the leader sent as this entry, when proposed is set.
	sent     sentEntry
	proposed bool
	// used is false in an index's inline record until its first entry.
	used bool
	// acked has bit b set once broker b (b < ackBitsMax) stored the entry.
	acked uint64
}

// entriesAt holds one index's records: the first term seen inline, any
// other in more.
type entriesAt struct {
	first entryRec
	more  []entryRec
}

// entryTable is one group's entries sent and stored, by raft index.
type entryTable struct {
	// at[i] holds index i's entries (at[0] is unused).
	at []entriesAt
	// acksWide holds the acknowledgements of brokers with ids of
	// ackBitsMax or more (nil until one).
	acksWide map[ackKey]struct{}
}

// find returns entry k's record, nil if none.
func (t *entryTable) find(k entryKey) *entryRec {
	if k.index >= uint64(len(t.at)) {
		return nil
	}
	e := &t.at[k.index]
	if !e.first.used {
		return nil
	}
	if e.first.term == k.term {
		return &e.first
	}
	for j := range e.more {
		if e.more[j].term == k.term {
			return &e.more[j]
		}
	}
	return nil
}

// record returns entry k's record, adding an empty one if none; the
// pointer is valid until the next record.
func (t *entryTable) record(k entryKey) *entryRec {
	if r := t.find(k); r != nil {
		return r
	}
	t.at = covering(t.at, int(k.index))
	e := &t.at[k.index]
	if !e.first.used {
		e.first = entryRec{term: k.term, used: true}
		return &e.first
	}
	e.more = append(e.more, entryRec{term: k.term, used: true})
	return &e.more[len(e.more)-1]
}

// sent returns what a leader sent as entry k; ok is false if none did.
func (t *entryTable) sent(k entryKey) (e sentEntry, ok bool) {
	if r := t.find(k); r != nil && r.proposed {
		return r.sent, true
	}
	return sentEntry{}, false
}

// send records e as what a leader sent as entry k, replacing any record.
func (t *entryTable) send(k entryKey, e sentEntry) {
	r := t.record(k)
	r.sent, r.proposed = e, true
}

// ack records that broker b stored entry k.
func (t *entryTable) ack(k entryKey, b uint64) {
	if b >= ackBitsMax {
		if t.acksWide == nil {
			t.acksWide = map[ackKey]struct{}{}
		}
		t.acksWide[ackKey{k.term, k.index, b}] = struct{}{}
		return
	}
	t.record(k).acked |= 1 << b
}

// acked reports whether broker b stored entry k.
func (t *entryTable) acked(k entryKey, b uint64) bool {
	if b >= ackBitsMax {
		_, ok := t.acksWide[ackKey{k.term, k.index, b}]
		return ok
	}
	r := t.find(k)
	return r != nil && r.acked&(1<<b) != 0
}
