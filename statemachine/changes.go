package statemachine

import "fmt"

// A shard remembers which state keys and consumer groups it wrote or
// deleted lately, for a checker that compares it with a copy held
// elsewhere (a broker's store) and reads only what changed since it last
// looked (ChangesSince). Nothing in the shard reads it back: no result
// depends on it. Retained records need no such list: one is never
// rewritten once appended (retainedLog), so a log's changes are its
// window's ends.

// ChangesKeptMax is how many of its newest changes a shard keeps; a
// reader further behind is told it missed some, and compares everything.
const ChangesKeptMax = 512

// change is one state key (group false) or consumer group written or
// deleted.
type change struct {
	group bool
	key   string
}

// changeRing keeps the newest ChangesKeptMax changes.
//
// Invariant: len(ring) == min(count, ChangesKeptMax), and the change
// numbered i (from 0) is at ring[i%ChangesKeptMax] while i >= count-len(ring).
type changeRing struct {
	ring  []change
	count uint64
}

// note records one change.
func (c *changeRing) note(group bool, key string) {
	if len(c.ring) < ChangesKeptMax {
		c.ring = append(c.ring, change{group: group, key: key})
	} else {
		c.ring[c.count%ChangesKeptMax] = change{group: group, key: key}
	}
	c.count++
	if uint64(len(c.ring)) != min(c.count, ChangesKeptMax) {
		panic(fmt.Sprintf("changeRing: %d changes kept of %d noted, cap %d", len(c.ring), c.count, ChangesKeptMax))
	}
}

// ChangeCount is how many times the shard has written or deleted a state
// key or changed a consumer group, repeats counted: a mark for
// ChangesSince.
func (s *Shard) ChangeCount() uint64 { return s.changes.count }

// ChangesSince calls fn with each state key (group false) and consumer
// group (group true) the shard wrote or deleted after its ChangeCount was
// mark, oldest first, and returns true; it returns false, calling
// nothing, when it no longer keeps them all (mark is more than
// ChangesKeptMax changes back) or mark is past the count.
func (s *Shard) ChangesSince(mark uint64, fn func(group bool, key string)) bool {
	c := &s.changes
	if mark > c.count || c.count-mark > uint64(len(c.ring)) {
		return false
	}
	for i := mark; i < c.count; i++ {
		ch := &c.ring[i%ChangesKeptMax]
		fn(ch.group, ch.key)
	}
	return true
}
