package properties

import (
	"fmt"
	"sort"
	"strings"

	"github.com/felixsim/felixsim/felix"
)

// HistoryLandsAtMostOncePerDelivery checks the bound the network puts on
// writes the broker does not deduplicate: a broker proposes a request at
// most once per copy of it that reached a broker, so a record lands at
// most as many times as the copies of the requests that carried it were
// delivered. Per record (payloads identify writes, see
// HistoryConditionalWrites; a retry shares its original's, so their
// requests are summed), the distinct offsets holding it in the reference
// log, in any replica's log or in what a subscribe read or group fetch
// returned must number no more than those deliveries. Retention only
// lowers the count it sees (a dropped copy is not counted), so it never
// excuses an excess. A record one of whose sent writes has no recorded
// requests (HistoryOp.Requests nil) is not judged.
func HistoryLandsAtMostOncePerDelivery(h *History, replicas []ReplicaLog, ref *ReplicaLog) error {
	t := deliveryTalliesOf(h)
	if len(t.order) == 0 {
		return nil
	}
	if ref != nil {
		t.landLog(ref)
	}
	for i := range replicas {
		t.landLog(&replicas[i])
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Outcome == OutcomeOK && (op.Kind == HistorySubscribe || op.Kind == HistoryGroupFetch) {
			for j := range op.Entries {
				t.land(op.Scope, op.Entries[j].Offset, string(op.Entries[j].Record.Payload))
			}
		}
	}
	v := violations{what: InvariantLandsAtMostOncePerDelivery}
	for _, p := range t.order {
		d := t.byPayload[p]
		if at := d.distinct(); uint64(len(at)) > d.delivered {
			v.add("record %.80q landed %d times (%s) but its requests were delivered %d times: %s",
				p, len(at), landingsText(at), d.delivered, d.requestsText(h))
		}
	}
	return v.err()
}

// deliveryTally is one record's sent writes, the deliveries of their
// requests and the places it landed.
type deliveryTally struct {
	// ops are the indexes in the history of the sent writes carrying it.
	ops       []int
	delivered uint64
	landed    []landing
}

// landing is one place a record was seen: a scope's offset.
type landing struct {
	scope  felix.Scope
	offset uint64
}

// deliveryTallies are the judged records, in the order of their first
// write in the history.
type deliveryTallies struct {
	byPayload map[string]*deliveryTally
	order     []string
}

// deliveryTalliesOf sums, per record, the deliveries of every sent
// write's requests; a record with a write whose requests were not
// recorded is left out.
func deliveryTalliesOf(h *History) deliveryTallies {
	t := deliveryTallies{byPayload: map[string]*deliveryTally{}}
	unknown := map[string]bool{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.NotSent {
			continue
		}
		p := string(op.Record.Payload)
		if op.Requests == nil {
			unknown[p] = true
			continue
		}
		d, ok := t.byPayload[p]
		if !ok {
			d = &deliveryTally{}
			t.byPayload[p] = d
			t.order = append(t.order, p)
		}
		d.ops = append(d.ops, i)
		for _, q := range op.Requests {
			d.delivered += uint64(q.Delivered)
		}
	}
	kept := t.order[:0]
	for _, p := range t.order {
		if unknown[p] {
			delete(t.byPayload, p)
			continue
		}
		kept = append(kept, p)
	}
	t.order = kept
	return t
}

// landLog notes every record of every scope of one log.
func (t *deliveryTallies) landLog(l *ReplicaLog) {
	for s := range l.Scopes {
		v := &l.Scopes[s]
		for i := range v.Log {
			t.land(v.Scope, v.Log[i].Offset, v.Log[i].Event)
		}
	}
}

func (t *deliveryTallies) land(s felix.Scope, offset uint64, payload string) {
	if d, ok := t.byPayload[payload]; ok {
		d.landed = append(d.landed, landing{scope: s, offset: offset})
	}
}

// distinct sorts the record's landings and drops the repeats (one offset
// seen in several logs or reads is one landing).
func (d *deliveryTally) distinct() []landing {
	sort.Slice(d.landed, func(i, j int) bool {
		a, b := d.landed[i], d.landed[j]
		if a.scope != b.scope {
			return a.scope.Less(b.scope)
		}
		return a.offset < b.offset
	})
	out := d.landed[:0]
	for i, l := range d.landed {
		if i == 0 || l != d.landed[i-1] {
			out = append(out, l)
		}
	}
	d.landed = out
	return out
}

// landingsListedMax caps the landings and writes one violation spells out.
const landingsListedMax = 6

func landingsText(at []landing) string {
	var parts []string
	for i, l := range at {
		if i == landingsListedMax {
			parts = append(parts, fmt.Sprintf("and %d more", len(at)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s offset %d", l.scope, l.offset))
	}
	return strings.Join(parts, ", ")
}

// requestsText names the record's writes and their requests, each as
// id×copies delivered.
func (d *deliveryTally) requestsText(h *History) string {
	var parts []string
	for n, i := range d.ops {
		if n == landingsListedMax {
			parts = append(parts, fmt.Sprintf("and %d more writes", len(d.ops)-n))
			break
		}
		op := &h.Ops[i]
		var qs []string
		for _, q := range op.Requests {
			qs = append(qs, fmt.Sprintf("%d×%d", q.ID, q.Delivered))
		}
		parts = append(parts, fmt.Sprintf("op %d (%s by client %d, %s) requests %s", op.ID, op.Kind, op.Client, op.Outcome, strings.Join(qs, " ")))
	}
	return strings.Join(parts, "; ")
}
