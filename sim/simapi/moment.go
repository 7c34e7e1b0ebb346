package simapi

import (
	"fmt"
	"strings"
)

// Moment names a point in a broker's work that matters for crash
// recovery: the world may strike the process right after it (a targeted
// fault, see sim's fault table). A process reports one through
// Env.Moment; the zero value is invalid.
type Moment uint8

// Moments, in the order plans and coverage list them. Each is reported
// once its effect is durable (the store commit that made it so has
// returned), before the process does anything else.
const (
	momentInvalid Moment = iota
	// MomentSnapshotInstalled: a received raft snapshot was installed.
	MomentSnapshotInstalled
	// MomentGroupAckDurable: a consumer-group ack was applied.
	MomentGroupAckDurable
	// MomentCompacted: a raft log was compacted, or retention dropped a
	// prefix of a scope's log.
	MomentCompacted
	// MomentMembershipInFlight: a membership change reached the raft log
	// and is not yet applied.
	MomentMembershipInFlight
	// MomentPendingHeld: the process appended entries while it holds
	// client proposals it has not answered.
	MomentPendingHeld
	// MomentPendingHeldYoung: MomentPendingHeld in an incarnation that
	// has made at most YoungProposalsMax proposals (its sequence numbers
	// are still those a restart hands out again).
	MomentPendingHeldYoung
	momentEnd
)

// momentNames are the moments' plan spellings.
var momentNames = [momentEnd]string{"invalid", "snapshot_installed", "group_ack_durable", "compacted", "membership_in_flight", "pending_held",
	"pending_held_young"}

// momentDocs say in a few words what each moment is.
var momentDocs = [momentEnd]string{"",
	"a received raft snapshot was installed",
	"a consumer-group ack was applied",
	"a raft log was compacted or retention dropped a log prefix",
	"a membership change reached the raft log, not yet applied",
	"entries were appended while unanswered client proposals are held",
	"entries were appended while unanswered client proposals are held, by an incarnation young enough that a restart reuses its sequence numbers"}

// YoungProposalsMax bounds the proposals an incarnation has made for it
// to reach MomentPendingHeldYoung.
const YoungProposalsMax = 16

// Doc says in a few words what the moment is.
func (m Moment) Doc() string {
	if m.Valid() {
		return momentDocs[m]
	}
	return ""
}

// Valid reports whether m is a moment other than the zero one.
func (m Moment) Valid() bool { return m > momentInvalid && m < momentEnd }

// String names the moment as plans spell it.
func (m Moment) String() string {
	if m < momentEnd {
		return momentNames[m]
	}
	return fmt.Sprintf("moment(%d)", uint8(m))
}

// Moments lists every valid moment in order.
func Moments() []Moment {
	out := make([]Moment, 0, momentEnd-1)
	for m := momentInvalid + 1; m < momentEnd; m++ {
		out = append(out, m)
	}
	return out
}

// ParseMoment reads a moment's name.
func ParseMoment(s string) (Moment, error) {
	for _, m := range Moments() {
		if momentNames[m] == s {
			return m, nil
		}
	}
	return momentInvalid, fmt.Errorf("moment %q refused: not one of %s", s, strings.Join(momentNames[1:], ", "))
}
