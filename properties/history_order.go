package properties

import (
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// timedOffset is one write's place in the log and its call's times.
type timedOffset struct {
	offset             uint64
	invokeNs, complete int64
	id                 uint64
}

// HistoryWritesRespectRealTime checks that each scope's log orders the
// acknowledged writes consistently with real time: if write B was
// acknowledged before write A was invoked, B sits at a lower offset than A.
// Writes whose outcome was unknown but whose record the reference log
// holds (found by payload) take part as the later write only — their
// completion is unknown — and by the earliest invocation of any write
// carrying that payload (a retry's copy may be its original's).
func HistoryWritesRespectRealTime(h *History, ref *ReplicaLog) error {
	v := violations{what: InvariantLinearizableWrite}
	per := map[felix.Scope][]timedOffset{}
	var scopes []felix.Scope
	add := func(s felix.Scope, t timedOffset) {
		if _, ok := per[s]; !ok {
			scopes = append(scopes, s)
		}
		per[s] = append(per[s], t)
	}
	landed := landedOffsets(h, ref)
	first := firstInvokes(h)
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() {
			continue
		}
		switch op.Outcome {
		case OutcomeOK:
			add(op.Scope, timedOffset{offset: op.Offset, invokeNs: op.InvokeNs, complete: op.CompleteNs, id: op.ID})
		case OutcomeUnknown, OutcomePending:
			// Which write of a payload (an original, its retries, a
			// duplicated request) made which copy is unknown: the copy takes
			// the earliest invocation of any of them, the lenient bound.
			if off, ok := landed[op.ID]; ok {
				add(op.Scope, timedOffset{offset: off, invokeNs: first[string(op.Record.Payload)], complete: 1<<63 - 1, id: op.ID})
			}
		}
	}
	sort.Slice(scopes, func(i, j int) bool { return scopes[i].Less(scopes[j]) })
	for _, s := range scopes {
		checkWriteOrder(&v, s, per[s])
	}
	return v.err()
}

// checkWriteOrder scans one scope's writes from the highest offset down,
// keeping the earliest completion among higher offsets.
func checkWriteOrder(v *violations, s felix.Scope, ws []timedOffset) {
	sort.Slice(ws, func(i, j int) bool {
		return ws[i].offset < ws[j].offset || ws[i].offset == ws[j].offset && ws[i].id < ws[j].id
	})
	minComplete, minID, minOffset := int64(1<<63-1), uint64(0), uint64(0)
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if minComplete < w.invokeNs && minOffset > w.offset {
			v.add("%s: op %d was acknowledged at %d ns at offset %d, before op %d was invoked at %d ns, yet op %d sits at the lower offset %d",
				s, minID, minComplete, minOffset, w.id, w.invokeNs, w.id, w.offset)
		}
		if w.complete < minComplete {
			minComplete, minID, minOffset = w.complete, w.id, w.offset
		}
	}
}

// landedOffsets finds, for each write whose outcome is not known, the
// offset where the reference log holds its record — the highest one whose
// payload matches, if any. A retry shares its original's payload and a
// duplicated request lands twice, so which copy is whose is unknown; the
// highest offset is the lenient choice for a write that only ever plays
// the later write in the ordering check, so no false alarm comes of it.
func landedOffsets(h *History, ref *ReplicaLog) map[uint64]uint64 {
	byPayload := map[felix.Scope]map[string]uint64{}
	out := map[uint64]uint64{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || (op.Outcome != OutcomeUnknown && op.Outcome != OutcomePending) {
			continue
		}
		m, ok := byPayload[op.Scope]
		if !ok {
			m = map[string]uint64{}
			if l := ref.Scope(op.Scope); l != nil {
				for j := range l.Log {
					m[l.Log[j].Event] = l.Log[j].Offset
				}
			}
			byPayload[op.Scope] = m
		}
		if off, ok := m[string(op.Record.Payload)]; ok {
			out[op.ID] = off
		}
	}
	return out
}
