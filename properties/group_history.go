package properties

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// groupOffset names one offset of one consumer group.
type groupOffset struct {
	key    GroupKey
	offset uint64
}

// HistoryGroupAckedNotRedelivered checks GroupAckedNotRedelivered: once an
// ack of offset o for group g in a scope has succeeded, no group fetch of
// g in that scope invoked after the ack completed hands out o again. (An
// ack applies before its answer is sent and a fetch invoked later is
// ordered after it in the shard's log, so the fetch sees the ack.) The
// lease rule (docs/atomic-commit.md) allows handing a record out again
// only while it is unacked.
func HistoryGroupAckedNotRedelivered(h *History) error {
	acked := map[groupOffset]*HistoryOp{} // the ok ack that completed first
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != HistoryGroupAck || op.Outcome != OutcomeOK {
			continue
		}
		k := groupOffset{GroupKey{op.Scope, op.Group}, op.AckOffset}
		if a, ok := acked[k]; !ok || op.CompleteNs < a.CompleteNs {
			acked[k] = op
		}
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != HistoryGroupFetch || op.Outcome != OutcomeOK {
			continue
		}
		for _, e := range op.Entries {
			a, ok := acked[groupOffset{GroupKey{op.Scope, op.Group}, e.Offset}]
			if ok && a.CompleteNs <= op.InvokeNs {
				return firstAt(op.ID, InvariantGroupAckedNotRedelivered.Errorf("scope %s group %q: fetch %d (client %d, invoked at %d ns) handed out offset %d, whose ack %d (client %d) succeeded at %d ns",
					op.Scope, op.Group, op.ID, op.Client, op.InvokeNs, e.Offset, a.ID, a.Client, a.CompleteNs))
			}
		}
	}
	return nil
}

// HistoryGroupDeliversEveryRecord checks GroupDeliversEveryRecord for the
// consumer groups drained to their shard's tail after quiesce: every
// record the reference replica (LongestLogs) retains in the group's scope
// — enqueued or published, a queue being a stream read through a group —
// was handed out, with the same event, by some successful fetch of the
// group in the history. A drained group with no such scope on the
// reference replica held nothing to deliver.
func HistoryGroupDeliversEveryRecord(h *History, ref *ReplicaLog, drained []GroupKey) error {
	want := map[GroupKey]bool{}
	for _, k := range drained {
		want[k] = true
	}
	handed := map[groupOffset]*felix.Entry{}
	fetch := map[groupOffset]uint64{}
	for i := range h.Ops {
		op := &h.Ops[i]
		k := GroupKey{op.Scope, op.Group}
		if op.Kind != HistoryGroupFetch || op.Outcome != OutcomeOK || !want[k] {
			continue
		}
		for j := range op.Entries {
			at := groupOffset{k, op.Entries[j].Offset}
			if _, seen := handed[at]; !seen {
				handed[at], fetch[at] = &op.Entries[j], op.ID
			}
		}
	}
	for _, k := range drained {
		v := ref.Scope(k.Scope)
		if v == nil {
			continue
		}
		for i := range v.Log {
			e := &v.Log[i]
			got, ok := handed[groupOffset{k, e.Offset}]
			if !ok {
				return firstAt(0, InvariantGroupDeliversEveryRecord.Errorf("scope %s group %q: the record at offset %d (event %q, replica %s) was never handed out, though the group was drained to offset %d",
					k.Scope, k.Group, e.Offset, e.Event, v.Name, v.NextOffset)) // drained comes in scope order
			}
			if g := ViewEntryOf(got.Offset, &got.Record); g.Event != e.Event || g.Enqueue != e.Enqueue || g.HasEvent != e.HasEvent {
				return firstAt(0, InvariantGroupDeliversEveryRecord.Errorf("scope %s group %q: fetch %d handed out offset %d as event %q (enqueue %t), replica %s holds event %q (enqueue %t) there",
					k.Scope, k.Group, fetch[groupOffset{k, e.Offset}], e.Offset, g.Event, g.Enqueue, v.Name, e.Event, e.Enqueue))
			}
		}
	}
	return nil
}

// String names the group as scope/group.
func (k GroupKey) String() string { return fmt.Sprintf("%s/%s", k.Scope, k.Group) }
