package node

import (
	"strings"

	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
)

// Consumer-group state is kept durable beside the applied records, in the
// same batch: one state-table row per (tenant, group) under the stream
// shard's reserved groups scope (tenant groupsTenant, which clients cannot
// use), keyed tenant + "\x00" + group name, valued with the encoded
// statemachine.GroupState. A restart restores every scope's groups from
// those rows, so fetch/ack effects (positions, leases) survive it although
// raft does not re-apply their entries.
const groupsTenant = "_groups"

// groupsScope is the reserved scope holding g's consumer-group rows.
func groupsScope(g *group) statemachine.Scope {
	return statemachine.Scope{Tenant: groupsTenant, Namespace: g.spec.Namespace, Stream: g.spec.Stream, Shard: g.shard}
}

func groupKey(tenant, name string) string { return tenant + "\x00" + name }

// splitGroupKey returns the tenant and group name of a groups-scope key.
func splitGroupKey(key string) (tenant, name string, ok bool) {
	i := strings.IndexByte(key, 0)
	if i < 1 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// groupTouch names one consumer group changed in this batch.
type groupTouch struct{ tenant, name string }

// addGroupRows writes the current state of every touched group of g.
func (n *Node) addGroupRows(b *logstore.Batch, g *group, touched []groupTouch) {
	for i, t := range touched {
		if dupBefore(touched[:i], t) {
			continue
		}
		s := g.lookup(t.tenant)
		if s == nil {
			continue
		}
		for _, st := range s.Groups() {
			if st.Name == t.name {
				b.State = append(b.State, logstore.StateRow{Kind: logstore.WritePut, Scope: groupsScope(g),
					Key: groupKey(t.tenant, t.name), Value: encodeGroupState(&st), Version: g.applied})
			}
		}
	}
}

func dupBefore(ts []groupTouch, t groupTouch) bool {
	for _, u := range ts {
		if u == t {
			return true
		}
	}
	return false
}

// encodeGroupState encodes a group's position and leases (not its name).
func encodeGroupState(st *statemachine.GroupState) []byte {
	e := enc{b: make([]byte, 0, 20+16*len(st.Leases))}
	e.u64(st.CommittedOffset)
	e.u64(st.DeliverNextOffset)
	e.u32(uint32(len(st.Leases)))
	for _, l := range st.Leases {
		e.u64(l.Offset)
		e.u64(uint64(l.ExpiryNs))
	}
	return e.b
}

// decodeGroupState strictly decodes encodeGroupState's output for name.
func decodeGroupState(name string, p []byte) (statemachine.GroupState, error) {
	d := dec{b: p}
	st := statemachine.GroupState{Name: name, CommittedOffset: d.u64("committed"), DeliverNextOffset: d.u64("deliver next")}
	if n := d.count("leases", statemachine.LeasesPerGroupCap, 16); n > 0 {
		st.Leases = make([]statemachine.Lease, n)
		for i := range st.Leases {
			st.Leases[i] = statemachine.Lease{Offset: d.u64("lease offset"), ExpiryNs: int64(d.u64("lease expiry"))}
		}
	}
	return st, d.done()
}

// groupStates reads tenant's consumer groups from g's groups-scope rows,
// in name order.
func (n *Node) groupStates(g *group, tenant string) ([]statemachine.GroupState, error) {
	var out []statemachine.GroupState
	for _, row := range n.store.StateScan(groupsScope(g)) {
		t, name, ok := splitGroupKey(row.Key)
		if !ok {
			return nil, errorf("node %d: groups scope of group %d holds a malformed key %q", n.cfg.ID, g.id, row.Key)
		}
		if t != tenant {
			continue
		}
		st, err := decodeGroupState(name, row.Value)
		if err != nil {
			return nil, errorf("node %d: group %d: consumer group %q of tenant %q: %v", n.cfg.ID, g.id, name, tenant, err)
		}
		out = append(out, st)
	}
	return out, nil
}
