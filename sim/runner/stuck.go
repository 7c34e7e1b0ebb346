package runner

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/cluster"
)

// replicaStatus is one broker slot's view of one raft group when a phase
// ran out of its budget: what whyStuck reads.
type replicaStatus struct {
	broker string
	// running is false for a broker that is down, paused or failed; down
	// then says what is known of why (its last failure, or "").
	running bool
	down    string
	st      node.GroupStatus
	// rejects counts the appends this broker refused in the group during
	// the run; lastReject is the last one, at rejectAtNs.
	rejects    int
	lastReject node.AppendAck
	rejectAtNs int64
}

// whyStuck says why group makes no progress, from every broker's view of
// it: with no leader, which brokers run and in what role and term; with
// one, its commit mark against its last index and each member that lags
// behind it, and why (not running, not heard from, refusing appends, a
// snapshot in flight, its window full).
func whyStuck(group uint64, views []replicaStatus) string {
	lead := -1
	for i := range views {
		if v := &views[i]; v.running && v.st.Leads() && (lead < 0 || v.st.Term > views[lead].st.Term) {
			lead = i
		}
	}
	if lead < 0 {
		parts := make([]string, len(views))
		for i := range views {
			parts[i] = describeReplica(&views[i])
		}
		return fmt.Sprintf("group %d has no leader: %s", group, strings.Join(parts, "; "))
	}
	l := &views[lead]
	parts := []string{fmt.Sprintf("group %d led by %s in term %d, commit %d of last index %d", group, l.broker, l.st.Term, l.st.Commit, l.st.LastIndex)}
	for i := range views {
		if v := &views[i]; i != lead && v.running && v.st.Leads() {
			parts = append(parts, fmt.Sprintf("%s also leads, in term %d", v.broker, v.st.Term))
		}
	}
	lagging := 0
	for _, p := range l.st.Peers {
		if p.Match >= l.st.LastIndex {
			continue
		}
		lagging++
		parts = append(parts, describeLag(l, &p, replicaWithID(views, p.ID)))
	}
	if lagging == 0 {
		parts = append(parts, "every member holds its last index")
	}
	return strings.Join(parts, "; ")
}

// describeReplica is one broker's role, term, vote, leader and marks.
func describeReplica(v *replicaStatus) string {
	if !v.running {
		return v.broker + " not running" + parenthesized(v.down)
	}
	return fmt.Sprintf("%s %s in term %d (voted %d, believes leader %d, log through %d, commit %d)",
		v.broker, roleName(v.st.Role), v.st.Term, v.st.Vote, v.st.Lead, v.st.LastIndex, v.st.Commit)
}

// describeLag says how far member p lags behind leader l and why, from
// l's progress and the member's own view (nil: no broker of the run has
// its id).
func describeLag(l *replicaStatus, p *node.PeerProgress, v *replicaStatus) string {
	name := fmt.Sprintf("broker %d", p.ID)
	if v != nil {
		name = v.broker
	}
	at := fmt.Sprintf("%s lags at match %d, next %d", name, p.Match, p.Next)
	if p.Learner {
		at += " (a learner)"
	}
	var why []string
	switch {
	case v == nil:
		why = append(why, "no broker of the run has its id")
	case !v.running:
		why = append(why, "not running"+parenthesized(v.down))
	case v.st.Term > l.st.Term:
		why = append(why, fmt.Sprintf("it is in term %d, past the leader's", v.st.Term))
	case v.st.Lead == 0:
		why = append(why, fmt.Sprintf("it knows no leader (a %s in term %d)", roleName(v.st.Role), v.st.Term))
	case v.st.Lead != l.st.Lead:
		why = append(why, fmt.Sprintf("it follows broker %d in term %d", v.st.Lead, v.st.Term))
	}
	if !p.RecentActive && (v == nil || v.running) {
		why = append(why, "the leader has not heard from it within an election timeout")
	}
	if v != nil && v.rejects > 0 {
		r := &v.lastReject
		why = append(why, fmt.Sprintf("it refused %d appends, the last at %.3f s (the append after index %d; its log agrees at most through index %d, term %d)",
			v.rejects, float64(v.rejectAtNs)/1e9, r.Index, r.HintIndex, r.HintTerm))
	}
	switch {
	case p.State == "StateSnapshot":
		why = append(why, "a snapshot is in flight to it")
	case p.State == "StateProbe":
		why = append(why, "the leader is probing where their logs agree")
	case p.Paused:
		why = append(why, "the leader's window of appends to it is full")
	}
	if len(why) == 0 {
		why = append(why, "it is catching up")
	}
	return at + ": " + strings.Join(why, ", ")
}

// replicaWithID returns the view of the broker whose raft id is id, nil if
// none is.
func replicaWithID(views []replicaStatus, id uint64) *replicaStatus {
	for i := range views {
		if views[i].broker == brokerName(id) {
			return &views[i]
		}
	}
	return nil
}

// roleName is raft's state name in lower case without its prefix.
func roleName(role string) string { return strings.ToLower(strings.TrimPrefix(role, "State")) }

// parenthesized wraps s in " (…)", or returns "" for an empty s.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// stuckGroupsMax bounds how many groups one violation explains.
const stuckGroupsMax = 3

// whyStuck says why group makes no progress now (whyStuck over every
// broker slot's view of it, the appends each refused included).
func (r *run) whyStuck(group uint64) string {
	views := make([]replicaStatus, r.c.Brokers())
	for i := range views {
		id := r.c.IdentityOf(i)
		v := &views[i]
		v.broker = brokerName(id)
		if n := r.c.Node(id); n != nil {
			v.st, v.running = n.GroupStatus(group)
		} else {
			v.down = r.whyDown(i)
		}
		if b := r.inRun.acks.byBroker[id]; b != nil {
			if ga := b.find(group); ga != nil {
				v.rejects, v.lastReject, v.rejectAtNs = ga.rejects, ga.lastReject, ga.rejectAtNs
			}
		}
	}
	return whyStuck(group, views)
}

// whyDown says what is known of why broker slot simID is not running:
// paused, or its last failure.
func (r *run) whyDown(simID int) string {
	if !r.c.World.Down(simID) {
		return "paused"
	}
	fs := r.c.Failures()
	for i := len(fs) - 1; i >= 0; i-- {
		if cluster.SimID(fs[i].Broker) == simID {
			return fmt.Sprintf("its last failure, at %.3f s: %.160s", float64(fs[i].AtNs)/1e9, fs[i].Err.Error())
		}
	}
	return ""
}

// withLeaderless adds to err why each group without a running leader
// has none (at most stuckGroupsMax of them).
func (r *run) withLeaderless(err error) error {
	var why []string
	for g := uint64(1); g <= uint64(r.c.Groups()); g++ {
		if _, ok := r.c.Leader(g); !ok {
			why = append(why, r.whyStuck(g))
		}
	}
	if len(why) > stuckGroupsMax {
		why = append(why[:stuckGroupsMax], fmt.Sprintf("and %d more groups without a leader", len(why)-stuckGroupsMax))
	}
	if len(why) == 0 {
		return err
	}
	return fmt.Errorf("%w; %s", err, strings.Join(why, "; "))
}
