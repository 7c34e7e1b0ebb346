package tla

import (
	"fmt"

	"github.com/felixsim/felixsim/modeltrace"
)

// Linearizable state reads in trace mode. A broker serves state_get
// through raft's ReadIndex: it begins the read (ReadStart), raft confirms
// a read index (a commit index the leader held once a quorum confirmed it
// still led), and the broker answers once its applied index reaches it
// (StateRead). A read must see every write answered before it began, on
// any broker: so the read index is at least the highest index whose write
// was answered (written or refused) when the read began, and the state
// served is at that index or later. A deposed leader that serves a read
// from its own applied state without a quorum's confirmation, or a
// follower that serves one, gives a read index (its applied index) below
// a write another broker answered, and is refused at its StateRead.

// readKey names a state read by the broker serving it and the request.
type readKey struct{ broker, client, reqID uint64 }

// readBegun is a state read of key in scope tenant begun in group, when
// the group's highest answered index was mark.
type readBegun struct {
	group, mark uint64
	tenant, key string
}

// readStart takes a ReadStart: b begins client's read, which must be
// served at a read index no lower than every write answered so far.
func (v *TraceValidator) readStart(g *traceGroup, s *modeltrace.Step) error {
	if s.Client == 0 || s.ReqID == 0 {
		return fmt.Errorf("a read begun for no client request (client %d, request %d)", s.Client, s.ReqID)
	}
	k := readKey{s.Broker, s.Client, s.ReqID}
	if len(v.reads[k]) >= readsPerRequestMax {
		return fmt.Errorf("broker %d began %d reads of client %d request %d, none served nor ended", s.Broker, len(v.reads[k]), s.Client, s.ReqID)
	}
	v.reads[k] = append(v.reads[k], readBegun{group: g.id, mark: g.answeredMax, tenant: s.Tenant, key: s.Key})
	return nil
}

// readsPerRequestMax bounds the reads of one request a broker has begun
// and neither served nor ended (a client re-sends a request a few times
// at most before it gives up).
const readsPerRequestMax = 64

// readIndex checks a StateRead's read index against the read it serves:
// the oldest read of its request the broker began in the group.
func (v *TraceValidator) readIndex(g *traceGroup, s *modeltrace.Step) error {
	k := readKey{s.Broker, s.Client, s.ReqID}
	j := -1
	for i, r := range v.reads[k] {
		if r.group == g.id {
			j = i
			break
		}
	}
	if j < 0 {
		return fmt.Errorf("broker %d serves a read of client %d request %d it never began (no ReadStart): a state read goes through a read index", s.Broker, s.Client, s.ReqID)
	}
	r := v.reads[k][j]
	switch {
	case r.tenant != s.Tenant || r.key != s.Key:
		return fmt.Errorf("the read serves key %q of scope %q, but client %d request %d began a read of key %q of scope %q", s.Key, s.Tenant, s.Client, s.ReqID, r.key, r.tenant)
	case s.ReadIndex < 1 || s.ReadIndex > s.Applied:
		return fmt.Errorf("the read index %d is not applied on broker %d (applied %d): a read is served once its index is applied", s.ReadIndex, s.Broker, s.Applied)
	case s.ReadIndex < r.mark:
		return fmt.Errorf("the read index %d is below index %d, whose write was answered before the read began: the read would miss it", s.ReadIndex, r.mark)
	case s.ReadIndex > uint64(len(g.committed)):
		return fmt.Errorf("the read index %d was never committed (group committed 1..%d)", s.ReadIndex, len(g.committed))
	}
	v.reads[k] = append(v.reads[k][:j:j], v.reads[k][j+1:]...)
	if len(v.reads[k]) == 0 {
		delete(v.reads, k)
	}
	return nil
}

// dropReads ends the reads broker b began in group (every group: 0): it
// stopped leading or restarted, and answered them NotLeader or not at
// all.
func (v *TraceValidator) dropReads(b, group uint64) {
	for k, rs := range v.reads { //det:ok deletes; no order reaches output
		if k.broker != b {
			continue
		}
		kept := rs[:0]
		for _, r := range rs {
			if group != 0 && r.group != group {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			delete(v.reads, k)
		} else {
			v.reads[k] = kept
		}
	}
}

// triedReadStart is the action a ReadStart takes: the first half of the
// model's StateGet.
var triedReadStart = []string{"ReadStart"}

// dispatchRead is the dispatch of a ReadStart step.
func (v *TraceValidator) dispatchRead(g *traceGroup, s *modeltrace.Step) ([]string, error) {
	return triedReadStart, v.readStart(g, s)
}
