package properties

import "hash/fnv"

// linAcked is an immutable set of acknowledged group offsets, shared by
// the states that hold it: a treap whose shape the set alone decides
// (each key's priority is a hash of the key), so a state that acks one
// more offset shares all but O(log n) nodes with the state it came from,
// and two states holding the same set hold trees of the same shape. A
// set that copied itself whole at every ack cost the search memory
// quadratic in a scope's acks: 150 MB for one scope of a 600 s run.
//
// Invariant: keys ascend in order (groupOffsetKey, lessGroupOffset); a
// node's (prio, key) is above each of its children's (linAckedAbove); n
// counts the node's subtree. The nil set is empty.
type linAcked struct {
	key         groupOffsetKey
	prio        uint64
	left, right *linAcked
	n           int
}

// groupOffsetKey is one offset of one consumer group of the scope.
type groupOffsetKey struct {
	group  string
	offset uint64
}

// has reports whether the set holds group's offset.
func (a *linAcked) has(group string, offset uint64) bool {
	k := groupOffsetKey{group, offset}
	for a != nil {
		switch {
		case k == a.key:
			return true
		case lessGroupOffset(k, a.key):
			a = a.left
		default:
			a = a.right
		}
	}
	return false
}

// with is the set holding group's offset too (a itself when it does).
func (a *linAcked) with(group string, offset uint64) *linAcked {
	if a.has(group, offset) {
		return a
	}
	k := groupOffsetKey{group, offset}
	return a.insert(k, linAckedPrio(k))
}

// insert is a with k (absent from a) at priority prio, copying the nodes
// on k's path and sharing the rest.
func (a *linAcked) insert(k groupOffsetKey, prio uint64) *linAcked {
	if a == nil {
		return &linAcked{key: k, prio: prio, n: 1}
	}
	c := *a
	if lessGroupOffset(k, a.key) {
		c.left = a.left.insert(k, prio)
		if linAckedAbove(c.left, &c) {
			return c.rotateRight()
		}
	} else {
		c.right = a.right.insert(k, prio)
		if linAckedAbove(c.right, &c) {
			return c.rotateLeft()
		}
	}
	c.n = 1 + c.left.size() + c.right.size()
	return &c
}

// rotateRight lifts c's left child (a node of c's own copy) above c.
func (c linAcked) rotateRight() *linAcked {
	l := c.left
	c.left = l.right
	c.n = 1 + c.left.size() + c.right.size()
	l.right = &c
	l.n = 1 + l.left.size() + l.right.size()
	return l
}

// rotateLeft lifts c's right child (a node of c's own copy) above c.
func (c linAcked) rotateLeft() *linAcked {
	r := c.right
	c.right = r.left
	c.n = 1 + c.left.size() + c.right.size()
	r.left = &c
	r.n = 1 + r.left.size() + r.right.size()
	return r
}

// linAckedAbove reports whether x belongs above y in the treap: a higher
// priority, or an equal one and a lower key (a total order, so the shape
// is the set's alone).
func linAckedAbove(x, y *linAcked) bool {
	return x.prio > y.prio || x.prio == y.prio && lessGroupOffset(x.key, y.key)
}

// linAckedPrio is k's priority: a hash of the key.
func linAckedPrio(k groupOffsetKey) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k.group))
	var b [8]byte
	for i := range b {
		b[i] = byte(k.offset >> (8 * i))
	}
	h.Write(b[:])
	return h.Sum64()
}

// size is how many offsets the set holds.
func (a *linAcked) size() int {
	if a == nil {
		return 0
	}
	return a.n
}

// equal reports whether two sets hold the same offsets: the same shape
// with the same keys (trees they share are compared once, by pointer).
func (a *linAcked) equal(b *linAcked) bool {
	switch {
	case a == b:
		return true
	case a.size() != b.size() || a.key != b.key:
		return false
	}
	return a.left.equal(b.left) && a.right.equal(b.right)
}
