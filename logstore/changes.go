package logstore

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// OffsetSpan is the smallest and largest of some offsets: a table's rows a
// change touched, summed up. The zero value holds no offset.
type OffsetSpan struct {
	Lo, Hi uint64
	// Any is set once an offset was added.
	Any bool
}

// Add widens the span to hold offset.
func (s *OffsetSpan) Add(offset uint64) {
	if !s.Any {
		s.Lo, s.Hi, s.Any = offset, offset, true
		return
	}
	s.Lo, s.Hi = min(s.Lo, offset), max(s.Hi, offset)
}

// addRange widens the span to hold [from, to) (nothing when empty).
func (s *OffsetSpan) addRange(from, to uint64) {
	if from < to {
		s.Add(from)
		s.Add(to - 1)
	}
}

// ScopeChanges is which rows of one scope the transactions a Follower
// replayed wrote or deleted, since it was last taken (TakeChanges): what a
// checker comparing the rows with another copy must look at again. A
// retention step's dropped log rows, and the state rows dropped with them,
// count as deleted.
type ScopeChanges struct {
	LogWritten, LogDeleted       OffsetSpan
	OutboxWritten, OutboxDeleted OffsetSpan
	// StateKeys and ConsumerGroups name each state key and consumer group
	// written or deleted, once, ascending; KeysOverflow is set when more
	// than ChangedKeysMax of either changed, and then they are cut short.
	StateKeys      []string
	ConsumerGroups []string
	KeysOverflow   bool
}

// ChangedKeysMax caps the state keys, and the consumer groups, one
// scope's ScopeChanges names: past it, a checker compares the scope's
// whole table (KeysOverflow).
const ChangedKeysMax = 1024

// scopeChanges is one scope's changes as the tables collect them: the
// keys in sets, so a key written often counts once.
type scopeChanges struct {
	ScopeChanges
	stateKeys, groups map[string]struct{}
}

// changeLog collects, per scope, the rows tables.apply changes, for a
// follower's checker. Bounded: a scope's entry holds two spans per table
// and at most ChangedKeysMax keys per keyed table, and there is one entry
// per scope the store has changed since its checker last took it.
type changeLog struct {
	scopes map[felix.Scope]*scopeChanges
	// last and lastScope are the entry of looked up last (rows come in
	// runs of one scope).
	last      *scopeChanges
	lastScope felix.Scope
	// tables counts, per scope with rows, the tables that hold some;
	// scopesChanged counts the times a scope gained its first row or lost
	// its last one: the store's scope list changed.
	tables        map[felix.Scope]int
	scopesChanged uint64
}

func newChangeLog() *changeLog {
	return &changeLog{scopes: map[felix.Scope]*scopeChanges{}, tables: map[felix.Scope]int{}}
}

// of returns scope's entry, creating it.
func (c *changeLog) of(scope felix.Scope) *scopeChanges {
	if c.last != nil && scope == c.lastScope {
		return c.last
	}
	sc := c.scopes[scope]
	if sc == nil {
		sc = &scopeChanges{}
		c.scopes[scope] = sc
	}
	c.last, c.lastScope = sc, scope
	return sc
}

// tablesChanged counts scope's rows in delta more tables, and a change
// of the scope list when it had none or has none left.
func (c *changeLog) tablesChanged(scope felix.Scope, delta int) {
	n := c.tables[scope] + delta
	if n < 0 || n > tableCount {
		panic(fmt.Sprintf("logstore: scope %s has rows in %d tables", scope, n))
	}
	if n == 0 {
		delete(c.tables, scope)
	} else {
		c.tables[scope] = n
	}
	if n == 0 || n == delta {
		c.scopesChanged++
	}
}

// key adds key to set, or marks the overflow once the set is full.
func (sc *scopeChanges) key(set *map[string]struct{}, key string) {
	if *set == nil {
		*set = map[string]struct{}{}
	}
	if _, ok := (*set)[key]; ok {
		return
	}
	if len(*set) >= ChangedKeysMax {
		sc.KeysOverflow = true
		return
	}
	(*set)[key] = struct{}{}
}

// take returns scope's changes and forgets them.
func (c *changeLog) take(scope felix.Scope) ScopeChanges {
	sc := c.scopes[scope]
	if sc == nil {
		return ScopeChanges{}
	}
	delete(c.scopes, scope)
	if c.last == sc {
		c.last = nil
	}
	out := sc.ScopeChanges
	out.StateKeys = sortedKeys(sc.stateKeys)
	out.ConsumerGroups = sortedKeys(sc.groups)
	return out
}

// sortedKeys lists a set's keys in ascending order.
func sortedKeys(set map[string]struct{}) []string {
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TakeChanges returns which of scope's rows the transactions replayed
// since the last call for scope (or since the follower last started
// reading its file, Generation) wrote or deleted, and forgets them.
func (f *Follower) TakeChanges(scope felix.Scope) ScopeChanges {
	return f.s.tab.changes.take(scope)
}

// ScopesChanged counts, since the follower last started reading its file,
// the times a scope gained its first row or lost its last one in some
// table: while it stays the same, so does Store().Scopes().
func (f *Follower) ScopesChanged() uint64 { return f.s.tab.changes.scopesChanged }

// Generation counts the times the follower started reading its file
// again from its start (Reset): each time with a fresh Store, whose rows
// all count as changed.
func (f *Follower) Generation() uint64 { return f.generation }
