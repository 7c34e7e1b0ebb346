package properties

import (
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// readKey names one key of one scope.
type readKey struct {
	scope felix.Scope
	key   string
}

// HistoryReadsMonotonic checks that found state reads of one key never go
// back in time: a read invoked after another read of the same key
// completed returns a version at least as new. (A key's version only grows
// along the log, so an older version after a newer one is a stale read,
// whichever replica served it.)
func HistoryReadsMonotonic(h *History) error {
	v := violations{what: InvariantMonotonicRead}
	per := map[readKey][]*HistoryOp{}
	var keys []readKey
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != HistoryStateGet || op.Outcome != OutcomeOK || !op.Found {
			continue
		}
		k := readKey{op.Scope, op.Key}
		if _, ok := per[k]; !ok {
			keys = append(keys, k)
		}
		per[k] = append(per[k], op)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].scope != keys[j].scope {
			return keys[i].scope.Less(keys[j].scope)
		}
		return keys[i].key < keys[j].key
	})
	for _, k := range keys {
		checkMonotonic(&v, per[k])
	}
	return v.err()
}

// checkMonotonic sorts one key's reads by completion and compares each
// read with the newest version any read completed before its invocation saw.
func checkMonotonic(v *violations, reads []*HistoryOp) {
	byDone := append([]*HistoryOp(nil), reads...)
	sort.Slice(byDone, func(i, j int) bool {
		return byDone[i].CompleteNs < byDone[j].CompleteNs || byDone[i].CompleteNs == byDone[j].CompleteNs && byDone[i].ID < byDone[j].ID
	})
	best := make([]*HistoryOp, len(byDone)) // best[i]: newest version among byDone[:i+1]
	for i, r := range byDone {
		best[i] = r
		if i > 0 && best[i-1].Version > r.Version {
			best[i] = best[i-1]
		}
	}
	for _, r := range reads {
		n := sort.Search(len(byDone), func(i int) bool { return byDone[i].CompleteNs >= r.InvokeNs })
		if n > 0 && best[n-1].Version > r.Version {
			b := best[n-1]
			v.add("op %d (state_get %s on %s, invoked %d ns) returned version %d, older than version %d that op %d returned by %d ns",
				r.ID, r.Key, r.Scope, r.InvokeNs, r.Version, b.Version, b.ID, b.CompleteNs)
		}
	}
}
