package moment

import (
	"fmt"
	"strings"
)

// Moment names a point in a broker's work that matters for crash
// recovery or for timing: a host may strike the process right after it
// (the simulator's targeted faults, see sim/faultplan's fault table). A broker reports one
// to its host (node.Config.OnMoment, the simulator's Env.Moment); the zero
// value is invalid.
type Moment uint8

// Moments, in the order plans and coverage list them. Each is reported
// once the Ready round that reached it is durable (the store commit that
// made it so has returned), before the process does anything else.
const (
	invalid Moment = iota
	// SnapshotInstalled: a received raft snapshot was installed.
	SnapshotInstalled
	// GroupAckDurable: a consumer-group ack was applied.
	GroupAckDurable
	// Compacted: a raft log was compacted, or retention dropped a
	// prefix of a scope's log.
	Compacted
	// MembershipInFlight: a membership change reached the raft log
	// and is not yet applied.
	MembershipInFlight
	// PendingHeld: the process appended entries while it holds
	// client proposals it has not answered.
	PendingHeld
	// PendingHeldYoung: PendingHeld in an incarnation that
	// has made at most YoungProposalsMax proposals (its sequence numbers
	// are still those a restart hands out again).
	PendingHeldYoung
	// ReadsConfirmed: a leader's ReadIndex returned, confirming its
	// leadership for the state reads it holds, which it serves next.
	ReadsConfirmed
	end
)

// names are the moments' plan spellings.
var names = [end]string{"invalid", "snapshot_installed", "group_ack_durable", "compacted", "membership_in_flight", "pending_held",
	"pending_held_young", "reads_confirmed"}

// docs say in a few words what each moment is.
var docs = [end]string{"",
	"a received raft snapshot was installed",
	"a consumer-group ack was applied",
	"a raft log was compacted or retention dropped a log prefix",
	"a membership change reached the raft log, not yet applied",
	"entries were appended while unanswered client proposals are held",
	"entries were appended while unanswered client proposals are held, by an incarnation young enough that a restart reuses its sequence numbers",
	"a leader's ReadIndex confirmed its leadership for the state reads it holds"}

// YoungProposalsMax bounds the proposals an incarnation has made for it
// to reach PendingHeldYoung.
const YoungProposalsMax = 16

// Doc says in a few words what the moment is.
func (m Moment) Doc() string {
	if m.Valid() {
		return docs[m]
	}
	return ""
}

// Valid reports whether m is a moment other than the zero one.
func (m Moment) Valid() bool { return m > invalid && m < end }

// String names the moment as plans spell it.
func (m Moment) String() string {
	if m < end {
		return names[m]
	}
	return fmt.Sprintf("moment(%d)", uint8(m))
}

// All lists every valid moment in order.
func All() []Moment {
	out := make([]Moment, 0, end-1)
	for m := invalid + 1; m < end; m++ {
		out = append(out, m)
	}
	return out
}

// Parse reads a moment's name.
func Parse(s string) (Moment, error) {
	for _, m := range All() {
		if names[m] == s {
			return m, nil
		}
	}
	return invalid, fmt.Errorf("moment %q refused: not one of %s", s, strings.Join(names[1:], ", "))
}
