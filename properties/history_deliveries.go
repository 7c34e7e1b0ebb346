package properties

import "fmt"

// HistoryLandsAtMostOncePerDelivery checks the bound the network puts on
// writes the broker does not deduplicate: a broker proposes each copy of
// a request that reached it at most once, so per request (each attempt of
// a call: the first, each NotLeader re-send, each retry's) the brokers'
// proposals of it, and the distinct offsets it landed at, number no more
// than the copies of it the network delivered. Proposals and landings
// are the brokers' own account (l, from their abstract trace), matched to
// the request by its id: a record that landed twice from one delivered
// copy is caught though a retry carries the same payload. Retention
// cannot hide a landing (the trace saw every apply). A write whose
// requests the history did not record, and a ledger that overflowed,
// are not judged.
func HistoryLandsAtMostOncePerDelivery(h *History, l *Ledger) error {
	if l == nil || l.Overflowed {
		return nil
	}
	x := l.index()
	v := violations{what: InvariantLandsAtMostOncePerDelivery}
	sentRequests(h, func(op *HistoryOp, i int) {
		v.at = op.ID
		q := &op.Requests[i]
		if ps := x.proposals(op.Client, q.ID); uint64(len(ps)) > uint64(q.Delivered) {
			v.add("op %d (%s by client %d on %s): request %d was proposed %d times (%s) but delivered %d times",
				op.ID, op.Kind, op.Client, op.Scope, q.ID, len(ps), proposersText(ps), q.Delivered)
		}
		if landed := x.landed(op.Client, q.ID); uint64(len(landed)) > uint64(q.Delivered) {
			v.add("op %d (%s by client %d on %s): request %d landed %d times (%s) but was delivered %d times",
				op.ID, op.Kind, op.Client, op.Scope, q.ID, len(landed), landingsOf(landed), q.Delivered)
		}
	})
	return v.err()
}

// landingsListedMax caps the landings and proposals one violation spells out.
const landingsListedMax = 6

// proposersText names the brokers of up to landingsListedMax proposals.
func proposersText(ps []*LedgerProposal) string {
	bs := make([]uint64, 0, min(len(ps), landingsListedMax))
	for i, p := range ps {
		if i == landingsListedMax {
			break
		}
		bs = append(bs, p.Broker)
	}
	s := "by " + brokersText(bs)
	if len(ps) > landingsListedMax {
		s += fmt.Sprintf(" and %d more", len(ps)-landingsListedMax)
	}
	return s
}
