package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

// The promotion check (PromotedCaughtUp) reads the brokers' abstract
// trace, the same steps the trace validator gets: it keeps, per broker and
// raft group, the stored log's terms (Restart, Persist and Snapshot steps
// rebuild it) and the commit mark (Commit steps), and at each ProposeConf
// that makes a broker a voter it judges that broker's stored log against
// the proposing leader's, as both stand at that step.

// promotionLogEntriesMax caps the entries one traced log keeps. Overflow
// policy: the log is forgotten and marked, and a promotion that needs it
// is counted unjudged (never a pass).
const promotionLogEntriesMax = 1 << 21

// tracedLog is one broker's stored log of one group as its trace tells it.
type tracedLog struct {
	properties.StoredTerms
	commit   uint64
	overflow bool
}

// promotionCheck is a modeltrace.Sink judging every promotion.
type promotionCheck struct {
	logs map[brokerGroup]*tracedLog
	// judged and unjudged count the promotions seen; found is the first
	// violation and failed how many there were.
	judged, unjudged, failed int
	found                    error
}

func newPromotionCheck() *promotionCheck {
	return &promotionCheck{logs: map[brokerGroup]*tracedLog{}}
}

// log is broker's traced log of group, made empty on first use.
func (pc *promotionCheck) log(broker, group uint64) *tracedLog {
	k := brokerGroup{broker, group}
	l := pc.logs[k]
	if l == nil {
		l = &tracedLog{}
		pc.logs[k] = l
	}
	return l
}

// Step implements modeltrace.Sink.
func (pc *promotionCheck) Step(s *modeltrace.Step) {
	switch s.Kind {
	case modeltrace.Restart:
		l := pc.log(s.Broker, s.Group)
		*l = tracedLog{commit: s.CommitMark}
		if len(s.Entries) > 0 { // the stored snapshot's term leads
			l.SnapshotIndex, l.SnapshotTerm = s.Index, s.Entries[0].Term
			l.append(s.Index+1, s.Entries[1:])
		}
	case modeltrace.Persist:
		pc.log(s.Broker, s.Group).append(s.Index, s.Entries)
	case modeltrace.Snapshot:
		l := pc.log(s.Broker, s.Group)
		l.SnapshotIndex, l.SnapshotTerm, l.Terms = s.Index, s.Term, l.Terms[:0]
		l.commit = max(l.commit, s.Index)
	case modeltrace.Commit:
		l := pc.log(s.Broker, s.Group)
		l.commit = max(l.commit, s.Index)
	case modeltrace.ProposeConf:
		if s.Change != nil && s.Change.Type == modeltrace.AddVoter {
			pc.judge(s.Broker, s.Change.Node, s.Group)
		}
	}
}

// append stores es from index on, dropping any older suffix from index
// (a stored log's Persist).
func (l *tracedLog) append(index uint64, es []modeltrace.Entry) {
	if l.overflow {
		return
	}
	for index <= l.SnapshotIndex && len(es) > 0 { // never below the snapshot
		index, es = index+1, es[1:]
	}
	if index > l.LastIndex()+1 {
		l.overflow = true // a gap the trace never shows: judge nothing on it
		return
	}
	l.Terms = l.Terms[:index-l.SnapshotIndex-1]
	for _, e := range es {
		l.Terms = append(l.Terms, e.Term)
	}
	if len(l.Terms) > promotionLogEntriesMax {
		l.Terms, l.overflow = nil, true
	}
}

// judge checks the promotion of member that leader just proposed in group.
func (pc *promotionCheck) judge(leader, member, group uint64) {
	ll, ml := pc.log(leader, group), pc.log(member, group)
	if ll.overflow || ml.overflow || ll.commit > ll.LastIndex() {
		pc.unjudged++
		return
	}
	pc.judged++
	p := properties.Promotion{Group: group, Leader: brokerName(leader), Member: brokerName(member), CommitIndex: ll.commit,
		LeaderLog: ll.StoredTerms, MemberLog: ml.StoredTerms}
	if err := properties.PromotedCaughtUp(&p); err != nil {
		if pc.found == nil {
			pc.found = err
		}
		pc.failed++
	}
}

// violation is the check's PromotedCaughtUp finding (the first rejected
// promotion, with how many more there were), nil when none was rejected.
func (pc *promotionCheck) violation() *Violation {
	if pc.found == nil {
		return nil
	}
	msg := pc.found.Error()
	if pc.failed > 1 {
		msg += fmt.Sprintf("; and %d more promotion(s)", pc.failed-1)
	}
	v := newViolation(properties.InvariantPromotedCaughtUp, msg)
	return &v
}

// PromotionChecker is the promotion check for a caller that builds its own
// cluster, such as the scenario runner: pass it as the cluster's Trace
// sink and read Violations whenever a verdict is wanted.
type PromotionChecker struct{ pc *promotionCheck }

// NewPromotionChecker returns a promotion check that has seen no step.
func NewPromotionChecker() *PromotionChecker { return &PromotionChecker{pc: newPromotionCheck()} }

// Step implements modeltrace.Sink.
func (k *PromotionChecker) Step(s *modeltrace.Step) { k.pc.Step(s) }

// Violations returns the PromotedCaughtUp violation seen so far, if any.
func (k *PromotionChecker) Violations() []Violation {
	if v := k.pc.violation(); v != nil {
		return []Violation{*v}
	}
	return nil
}
