package runner

import (
	"sort"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// dropsPerScopeMax caps the retention steps recorded per scope; past it
// the scope's steps are forgotten and the checks are told none were
// observed (they then judge the scope as before retention was modelled:
// unknown rather than a false pass).
const dropsPerScopeMax = 1 << 16

// dropKey names one retention step of a scope: every replica applies it
// at the same log position. Two retain commands may apply at one position
// (no write between them), so the window start they made is part of the
// name: merging them would date the later, larger drop by the earlier.
type dropKey struct {
	scope     felix.Scope
	atNext    uint64
	below     uint64
	withWrite bool
}

// retentionDrops records the retention steps every broker applied, once
// each, with the earliest time one applied it, for the linearizability
// check's model of retention.
type retentionDrops struct {
	at       map[dropKey]int
	perScope map[felix.Scope][]properties.RetentionDrop
	overflow map[felix.Scope]bool
}

func newRetentionDrops() *retentionDrops {
	return &retentionDrops{at: map[dropKey]int{}, perScope: map[felix.Scope][]properties.RetentionDrop{}, overflow: map[felix.Scope]bool{}}
}

// note records d, applied at nowNs.
func (r *retentionDrops) note(d *node.DroppedPrefix, nowNs int64) {
	k := dropKey{scope: d.Scope, atNext: d.AtNext, below: d.Below, withWrite: d.WithWrite}
	list := r.perScope[d.Scope]
	if i, ok := r.at[k]; ok {
		list[i].AppliedNs = min(list[i].AppliedNs, nowNs)
		return
	}
	if r.overflow[d.Scope] {
		return
	}
	if len(list) == dropsPerScopeMax {
		r.overflow[d.Scope] = true
		return
	}
	r.at[k] = len(list)
	r.perScope[d.Scope] = append(list, properties.RetentionDrop{AtNext: d.AtNext, Below: d.Below, WithWrite: d.WithWrite, AppliedNs: nowNs})
}

// attach sets each reference scope's Drops to the steps recorded for it,
// ascending by log position (a count step before an age step at the same
// length, and steps at one length by the window start they made), unless
// the scope overflowed its cap.
func (r *retentionDrops) attach(ref *properties.ReplicaLog) {
	for i := range ref.Scopes {
		v := &ref.Scopes[i]
		list := r.perScope[v.Scope]
		if len(list) == 0 || r.overflow[v.Scope] {
			continue
		}
		out := append([]properties.RetentionDrop(nil), list...)
		sort.Slice(out, func(a, b int) bool {
			x, y := out[a], out[b]
			if x.AtNext != y.AtNext {
				return x.AtNext < y.AtNext
			}
			if x.WithWrite != y.WithWrite {
				return x.WithWrite
			}
			return x.Below < y.Below
		})
		v.Drops = out
	}
}

// RetentionSteps are the retention steps a cluster's brokers applied, as
// an InRunChecker recorded them (Retention), for CheckCluster's model of
// retention.
type RetentionSteps struct {
	drops *retentionDrops
}
