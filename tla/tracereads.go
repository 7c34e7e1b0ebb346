package tla

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

// Readers in trace mode: the model's state_get (StateGet(b, k)) and
// subscriber (SubscriberSees(b)) read whatever broker serves them, at any
// time; a read step is that observation, made in the broker's current
// state. The step is taken if it names that state (the broker's applied
// index, a retained window within its applied records); what it saw is
// then judged by the model's read rules (readRules), as TLC judges
// TraceFelixAtomicCommit's invariants on the state the step leaves.
// Retention is not the model's: a read reports its scope's first retained
// offset, and a key whose last write lies below it is absent, as the
// broker's retention forgets it.

// readScope checks that read step s names broker b's current state and
// returns its scope's number (-1: a scope the group never wrote) and next
// offset there.
func (g *traceGroup) readScope(s *modeltrace.Step) (int, uint64, error) {
	br := g.broker(s.Broker)
	id, ok := g.scopeIDs[s.Tenant]
	if !ok {
		id = -1
	}
	next := uint64(0)
	if ok {
		next = br.nextIn(id)
	}
	switch {
	case s.Applied != br.applied:
		return 0, 0, fmt.Errorf("the read was served at applied index %d, but broker %d has applied %d", s.Applied, s.Broker, br.applied)
	case s.First > next:
		return 0, 0, fmt.Errorf("scope %q's first retained offset %d is past its next offset %d on broker %d", s.Tenant, s.First, next, s.Broker)
	case s.First != br.firstIn(id):
		return 0, 0, fmt.Errorf("scope %q's first retained offset is %d on broker %d at applied index %d, not %d: retention drops at log positions, the same on every replica", s.Tenant, br.firstIn(id), s.Broker, br.applied, s.First)
	case s.Kind == modeltrace.SubscriberRead && (len(s.Records) == 0 || s.Offset < s.First):
		return 0, 0, fmt.Errorf("a subscriber read of %d records from offset %d, below the first retained offset %d or of none", len(s.Records), s.Offset, s.First)
	case s.Kind == modeltrace.StateRead && !s.Found && (s.Digest != 0 || s.Offset != 0):
		return 0, 0, fmt.Errorf("a state read that found nothing reports value %016x at version %d", s.Digest, s.Offset)
	}
	return id, next, nil
}

// read takes a read step: StateGet(b, k) for a StateRead (at a read index
// that covers every write answered before the read began:
// tracereadindex.go), SubscriberSees(b) for a SubscriberRead. It changes
// nothing but the reads begun; readRules judges what it saw.
func (v *TraceValidator) read(g *traceGroup, s *modeltrace.Step) ([]string, error) {
	if s.Kind == modeltrace.SubscriberRead {
		_, _, err := g.readScope(s)
		return triedSubscriberSees, err
	}
	if _, _, err := g.readScope(s); err != nil {
		return triedStateGet, err
	}
	return triedStateGet, v.readIndex(g, s)
}

// noteRecord records the record write w wrote at offset o of scope id,
// the first time any broker writes that offset: its digest, and its last
// operation on each key it touches.
func (g *traceGroup) noteRecord(id int, o uint64, w *modeltrace.Write) {
	g.recordDigests = covering(g.recordDigests, id)
	if uint64(len(g.recordDigests[id])) != o {
		panic(fmt.Sprintf("tla: trace: scope %q records offset %d after %d offsets", w.Tenant, o, len(g.recordDigests[id])))
	}
	g.recordDigests[id] = append(g.recordDigests[id], w.Digest)
	g.keyTouches = covering(g.keyTouches, id)
	if g.keyTouches[id] == nil {
		g.keyTouches[id] = map[string][]keyTouch{}
	}
	for j, op := range w.StateOps {
		if lastOpOn(w.StateOps, op.Key) != j {
			continue // a later operation of the record wins this key
		}
		g.keyTouches[id][op.Key] = append(g.keyTouches[id][op.Key], keyTouch{offset: o, del: op.Delete, value: op.Value})
	}
}

func lastOpOn(ops []modeltrace.StateOp, key string) int {
	last := -1
	for j := range ops {
		if ops[j].Key == key {
			last = j
		}
	}
	return last
}

// readRules judges what read step s saw against the records its broker
// applied (the model's fold of shard[b]): NoPartialCommit (a state read
// sees the value the applied records leave, a subscriber the whole
// records the broker applied at those offsets), VersionIsOffset (a found
// value's version is the offset of a record that put that value on the
// key) and StateMatchesLog (the version is the last such record's).
func (g *traceGroup) readRules(s *modeltrace.Step) *invariantBreak {
	id, next, err := g.readScope(s)
	if err != nil {
		panic(fmt.Sprintf("tla: trace: read rules of a read the action refused: %v", err))
	}
	if s.Kind == modeltrace.SubscriberRead {
		return g.subscriberRule(s, id, next)
	}
	var touches []keyTouch
	if id >= 0 && id < len(g.keyTouches) {
		touches = g.keyTouches[id][s.Key]
	}
	n := sort.Search(len(touches), func(j int) bool { return touches[j].offset >= next })
	want, found := keyTouch{}, false
	if n > 0 && !touches[n-1].del && touches[n-1].offset >= s.First {
		want, found = touches[n-1], true
	}
	seen := "nothing"
	if s.Found {
		seen = fmt.Sprintf("value %016x at version %d", s.Digest, s.Offset)
	}
	if s.Found != found || (found && s.Digest != want.value) {
		return broke(properties.InvariantNoPartialCommit, "broker %d read key %q of scope %q at applied index %d and saw %s, but the %d records it applied (retained from offset %d) leave %s",
			s.Broker, s.Key, s.Tenant, s.Applied, seen, next, s.First, touchText(want, found))
	}
	if !found {
		return nil
	}
	j := sort.Search(n, func(j int) bool { return touches[j].offset >= s.Offset })
	if j == n || touches[j].offset != s.Offset || touches[j].del || touches[j].value != s.Digest || s.Offset < s.First {
		return broke(properties.InvariantVersionIsOffset, "broker %d read key %q of scope %q as %s: no retained record it applied at offset %d put that value on the key",
			s.Broker, s.Key, s.Tenant, seen, s.Offset)
	}
	if s.Offset != want.offset {
		return broke(properties.InvariantStateMatchesLog, "broker %d read key %q of scope %q as %s, but the last record it applied that touches the key is at offset %d",
			s.Broker, s.Key, s.Tenant, seen, want.offset)
	}
	return nil
}

// subscriberRule: each record a subscriber read is the whole record the
// broker applied at that offset (event and state operations), and the
// broker applied it.
func (g *traceGroup) subscriberRule(s *modeltrace.Step, id int, next uint64) *invariantBreak {
	for j, d := range s.Records {
		o := s.Offset + uint64(j)
		if o >= next {
			return broke(properties.InvariantNoPartialCommit, "broker %d served a subscriber offset %d of scope %q, but it applied offsets below %d only (applied index %d): an event whose state it does not hold",
				s.Broker, o, s.Tenant, next, s.Applied)
		}
		if want := g.recordDigests[id][o]; d != want {
			return broke(properties.InvariantNoPartialCommit, "broker %d served a subscriber offset %d of scope %q as record %016x, but the record written there is %016x (its event and every state operation)",
				s.Broker, o, s.Tenant, d, want)
		}
	}
	return nil
}

func touchText(t keyTouch, found bool) string {
	if !found {
		return "it absent"
	}
	return fmt.Sprintf("value %016x at version %d", t.value, t.offset)
}
