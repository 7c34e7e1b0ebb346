package tla

import (
	"fmt"

	"github.com/felixsim/felixsim/modeltrace"
)

// Apply in trace mode: FelixAtomicCommit's Apply(b), refined so that every
// field of the step is recomputed from the entry's command and the
// broker's state (traceretention.go keeps the retained windows, the
// finalized feature and the stream's incarnation):
//
//   - a client write of scope s is refused with UnknownStream when the
//     stream's incarnation is deleted; else a commit (state operations)
//     is refused with FeatureNotFinalized before atomic_commit is
//     finalized; else a conditional write expecting another offset than
//     s's next is refused with that tail; else it is written at s's next
//     offset, the oldest retained record dropped when s already retains
//     RetainedMax records. Two refusals the model allows without
//     requiring them, as it does not hold what decides them: Unavailable
//     when s's retained log is full (a consumer group has not committed
//     its oldest record), and InvalidRequest for a scope the broker holds
//     nothing of when the group's writes name more than
//     ScopesPerGroupMax scopes (the group's scope cap);
//   - a consumer-group command or an outbox trim is refused with
//     UnknownStream when the incarnation is deleted, and otherwise writes
//     nothing or is refused with another error (consumer-group state is
//     not modelled);
//   - a retention step (retain) drops records below its offset, no
//     further than the scope's next offset (consumer groups may hold it
//     back: the first retained offset it reports lies between the one
//     before and that bound), and is refused with InvalidRequest when the
//     scope holds nothing on the broker or the offset is past its tail;
//   - a feature's marker finalizes it; an incarnation's marker newer than
//     the broker's moves it there and empties every scope (the first
//     retained offset moves to the next);
//   - an empty entry gives nothing.
//
// Every Apply of an index, on any broker, gives what the first gave:
// outcome, offset, error and first retained offset.

// ScopesPerGroupMax is the most scopes a stream shard's raft group holds
// (the broker's node.ScopesPerRaftGroupMax; a test in sim/runner holds the
// two equal, as tla may not import node).
const ScopesPerGroupMax = 64

// Error causes of an apply, by the wire's names of their codes.
const (
	errDeleted      = "UnknownStream"
	errNotFinalized = "FeatureNotFinalized"
	errWindowHeld   = "Unavailable"
	errInvalid      = "InvalidRequest"
)

// featureAtomicCommit is the fleet feature that gates commits.
const featureAtomicCommit = "atomic_commit"

// applyWant is what the model gives for an apply: an outcome (its offset,
// or its error's code), and an error the model allows instead (mayErr, ""
// for none), decided by state it does not hold.
type applyWant struct {
	outcome modeltrace.Outcome
	offset  uint64
	err     string
	mayErr  string
}

// allows reports whether step s gives what w does (or w.mayErr).
func (w applyWant) allows(s *modeltrace.Step) bool {
	if w.mayErr != "" && s.Outcome == modeltrace.OutcomeError && s.Error == w.mayErr && s.Offset == 0 {
		return true
	}
	if s.Outcome != w.outcome || s.Error != w.err {
		return false
	}
	if s.Outcome == modeltrace.OutcomeError {
		return s.Offset == 0
	}
	return s.Offset == w.offset
}

func (w applyWant) String() string {
	out := outcomeText(w.outcome, w.err, w.offset)
	if w.mayErr != "" {
		out += " (or error " + w.mayErr + ")"
	}
	return out
}

// outcomeText renders an apply's outcome: "written at 3", "refused at 2",
// "error UnknownStream", "none".
func outcomeText(o modeltrace.Outcome, err string, offset uint64) string {
	switch {
	case o == modeltrace.OutcomeError && err != "":
		return "error " + err
	case o == modeltrace.OutcomeWritten || o == modeltrace.OutcomeRefused || offset != 0:
		return fmt.Sprintf("%s at %d", o, offset)
	}
	return o.String()
}

// apply is Apply(b): b applies its next committed entry, which gives what
// the model recomputes (see above), the same as every other Apply of it.
func (v *TraceValidator) apply(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	i := s.Index
	if err := v.nextApply(br, s); err != nil {
		return err
	}
	if err := g.sameOutcome(s); err != nil {
		return err
	}
	if s.Digest == 0 {
		if s.Outcome != modeltrace.OutcomeNone || s.Error != "" || s.First != 0 {
			return fmt.Errorf("the empty entry %d applied as %s (first offset %d), not as nothing", i, outcomeText(s.Outcome, s.Error, s.Offset), s.First)
		}
		g.noteOutcome(s, command{scope: -1})
		br.applied = i
		return nil
	}
	cmd, full, err := g.commandFor(s)
	if err != nil {
		return err
	}
	if cmd.kind.Writes() {
		err = v.applyWrite(g, br, i, &cmd, full, s)
	} else {
		err = v.applyCommand(g, br, i, &cmd, s)
	}
	if err != nil {
		return err
	}
	if first := !g.outcomeAt(i).set; first {
		g.noteOutcome(s, cmd)
		g.resolveAppend(s.Digest, i)
	}
	br.applied = i
	if cmd.proposer == s.Broker && (s.Outcome == modeltrace.OutcomeWritten || s.Outcome == modeltrace.OutcomeRefused) {
		k := answerKey{s.Broker, cmd.client, cmd.reqID}
		v.answers[k] = append(v.answers[k], answerRec{outcome: s.Outcome, offset: s.Offset, group: g.id, index: i})
	}
	return nil
}

// commandFor is the command Apply step s applies: the write's, for the
// first Apply of its index (full is the write then, whose state
// operations a first record needs), else the one the first Apply kept.
func (g *traceGroup) commandFor(s *modeltrace.Step) (cmd command, full *clientWrite, err error) {
	if o := g.outcomeAt(s.Index); o.set {
		if o.digest != s.Digest {
			return command{}, nil, fmt.Errorf("entry %d holds data %016x, but broker %d applied data %016x there", s.Index, s.Digest, o.broker, o.digest)
		}
		return o.cmd, nil, nil
	}
	cw := g.writes[s.Digest]
	if cw == nil {
		return command{}, nil, fmt.Errorf("entry %d (data %016x) is no client's write", s.Index, s.Digest)
	}
	return commandOf(cw), cw, nil
}

// writeWant is what applying client write c gives on br, whose scope
// holds records first.. below next.
func (g *traceGroup) writeWant(br *traceBroker, c *command, next, first uint64) applyWant {
	var out applyWant
	if next == 0 && len(g.scopeIDs) > ScopesPerGroupMax {
		out.mayErr = errInvalid
	}
	switch {
	case br.deleted():
		out.outcome, out.err, out.mayErr = modeltrace.OutcomeError, errDeleted, ""
	case c.commit && !br.finalized:
		out.outcome, out.err = modeltrace.OutcomeError, errNotFinalized
	case c.conditional && c.expected != next:
		out.outcome, out.offset = modeltrace.OutcomeRefused, next
	default:
		out.outcome, out.offset = modeltrace.OutcomeWritten, next
		if g.retainedMax > 0 && next-first >= g.retainedMax {
			out.mayErr = errWindowHeld
		}
	}
	return out
}

// applyWrite checks one client write's apply against the model and writes
// its record; full is the write on the first Apply of the index (nil
// after), whose state operations the record's first writing notes.
func (v *TraceValidator) applyWrite(g *traceGroup, br *traceBroker, i uint64, c *command, full *clientWrite, s *modeltrace.Step) error {
	tenant := g.tenantOf(c.scope)
	next, first := br.nextIn(c.scope), br.firstIn(c.scope)
	want := g.writeWant(br, c, next, first)
	if !want.allows(s) {
		return fmt.Errorf("entry %d, a %s of scope %q expecting %d, applied as %s; the scope's next offset on broker %d is %d (retained from %d), finalized %t, %s, so the model gives %v",
			i, c.kind, tenant, c.expected, outcomeText(s.Outcome, s.Error, s.Offset), s.Broker, next, first, br.finalized, incarnationText(br.incarnation), want)
	}
	after := first
	if s.Outcome == modeltrace.OutcomeWritten && g.retainedMax > 0 && next+1-first > g.retainedMax {
		after = next + 1 - g.retainedMax
	}
	if s.First != after {
		return fmt.Errorf("entry %d, a %s of scope %q applied as %s, leaves its first retained offset at %d, but the model at %d (retained from %d below %d, at most %d records)",
			i, c.kind, tenant, s.Outcome, s.First, after, first, next, g.retainedMax)
	}
	if s.Outcome != modeltrace.OutcomeWritten {
		return nil
	}
	idx := g.writtenIn(c.scope)
	switch {
	case uint64(len(idx)) == next:
		if next > 0 && idx[next-1] >= i {
			panic(fmt.Sprintf("tla: trace: scope %q's records would not ascend: entry %d written at offset %d after entry %d", tenant, i, next, idx[next-1]))
		}
		if full == nil {
			panic(fmt.Sprintf("tla: trace: scope %q offset %d first written by entry %d, which an earlier Apply wrote elsewhere", tenant, next, i))
		}
		g.written = covering(g.written, c.scope)
		g.written[c.scope] = append(idx, i)
		g.noteRecord(c.scope, next, &full.w)
	case idx[next] != i:
		return fmt.Errorf("scope %q offset %d holds entry %d on another broker, not entry %d", tenant, next, idx[next], i)
	}
	br.next = covering(br.next, c.scope)
	br.next[c.scope] = next + 1
	br.setFirst(c.scope, after)
	return nil
}

// applyCommand checks the apply of a command that writes no record (a
// consumer-group command, an outbox trim, a retention step, a marker)
// and takes its effect.
func (v *TraceValidator) applyCommand(g *traceGroup, br *traceBroker, i uint64, c *command, s *modeltrace.Step) error {
	tenant := g.tenantOf(c.scope)
	next, first := br.nextIn(c.scope), br.firstIn(c.scope)
	if s.Offset != 0 || (s.Outcome != modeltrace.OutcomeNone && s.Outcome != modeltrace.OutcomeError) || (s.Outcome == modeltrace.OutcomeError) != (s.Error != "") {
		return fmt.Errorf("entry %d, a %s, applied as %s: it writes no record", i, c.kind, outcomeText(s.Outcome, s.Error, s.Offset))
	}
	switch c.kind {
	case modeltrace.KindRetain:
		return g.applyRetain(br, i, c, s, next, first)
	case modeltrace.KindFeature, modeltrace.KindIncarnation:
		if s.Outcome != modeltrace.OutcomeNone || s.First != 0 {
			return fmt.Errorf("entry %d, a %s marker, applied as %s (first offset %d), not as nothing", i, c.kind, outcomeText(s.Outcome, s.Error, s.Offset), s.First)
		}
		g.applyMarker(br, i, c)
		return nil
	}
	deleted := br.deleted()
	if deleted != (s.Error == errDeleted) {
		return fmt.Errorf("entry %d, a %s of scope %q, applied as %s, but the stream's incarnation on broker %d is %s: the model refuses it with %s exactly when deleted",
			i, c.kind, tenant, outcomeText(s.Outcome, s.Error, s.Offset), s.Broker, incarnationText(br.incarnation), errDeleted)
	}
	if s.First != first {
		return fmt.Errorf("entry %d, a %s of scope %q, leaves its first retained offset at %d, but it drops nothing: the model keeps %d", i, c.kind, tenant, s.First, first)
	}
	return nil
}

// applyRetain checks a retention step's apply: refused with InvalidRequest
// when the scope holds nothing on br or its offset is past the tail;
// otherwise the first retained offset moves up, to at most the step's
// offset (consumer groups may hold it back).
func (g *traceGroup) applyRetain(br *traceBroker, i uint64, c *command, s *modeltrace.Step, next, first uint64) error {
	tenant := g.tenantOf(c.scope)
	if next == 0 || c.retain > next {
		if s.Outcome != modeltrace.OutcomeError || s.Error != errInvalid || s.First != first {
			return fmt.Errorf("entry %d, a retain of scope %q below %d, applied as %s (first offset %d), but the scope's next offset on broker %d is %d: the model refuses it with %s",
				i, tenant, c.retain, outcomeText(s.Outcome, s.Error, s.Offset), s.First, s.Broker, next, errInvalid)
		}
		return nil
	}
	if hi := max(first, c.retain); s.Outcome != modeltrace.OutcomeNone || s.First < first || s.First > hi {
		return fmt.Errorf("entry %d, a retain of scope %q below %d, applied as %s leaving its first retained offset at %d; the model drops from %d to at most %d",
			i, tenant, c.retain, outcomeText(s.Outcome, s.Error, s.Offset), s.First, first, hi)
	}
	br.setFirst(c.scope, s.First)
	g.noteDrop(c.scope, i, s.First)
	return nil
}

// sameOutcome refuses an Apply of raft index s.Index whose outcome differs
// from the one an earlier Apply of that index gave (on any broker): every
// replica applies a committed entry to the same shard state, so it writes
// the same record at the same offset, or refuses it with the same tail or
// error, or writes nothing, leaving the same retained window, as every
// other.
func (g *traceGroup) sameOutcome(s *modeltrace.Step) error {
	if s.Index >= uint64(len(g.outcomes)) || !g.outcomes[s.Index].set {
		return nil
	}
	if o := g.outcomes[s.Index]; o.outcome != s.Outcome || o.offset != s.Offset || o.err != s.Error || o.first != s.First {
		return fmt.Errorf("broker %d applied entry %d as %s (first offset %d), but broker %d applied it as %s (first offset %d): replicas apply a committed entry alike",
			s.Broker, s.Index, outcomeText(s.Outcome, s.Error, s.Offset), s.First, o.broker, outcomeText(o.outcome, o.err, o.offset), o.first)
	}
	return nil
}

// noteOutcome records what the first Apply of s.Index gave, and the
// command it applied.
func (g *traceGroup) noteOutcome(s *modeltrace.Step, cmd command) {
	g.outcomes = covering(g.outcomes, int(s.Index))
	if !g.outcomes[s.Index].set {
		g.outcomes[s.Index] = appliedOutcome{set: true, outcome: s.Outcome, offset: s.Offset, err: s.Error, first: s.First, broker: s.Broker, digest: s.Digest, cmd: cmd}
	}
}

// operatorShape refuses a broker's own command the model has no rule for:
// the kind that named none (formats before v3), or a marker of a scope.
func operatorShape(w *modeltrace.Write) error {
	switch w.Kind {
	case modeltrace.KindOperator:
		return fmt.Errorf("an operator command that names no kind (retain, feature or incarnation): the model has no rule for it")
	case modeltrace.KindFeature, modeltrace.KindIncarnation:
		if w.Tenant != "" || w.Ops != 0 || w.Digest != 0 {
			return fmt.Errorf("a %s marker names scope %q or a record", w.Kind, w.Tenant)
		}
	}
	return nil
}
