package properties

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLinAckedIsASet: whatever the order of the acks, the set holds
// exactly the offsets acked (has, size), keeps its treap invariants
// (keys in order, each node above its children, counts right), two sets
// of the same offsets are equal whatever order built them and sets that
// differ in one offset are not, and a set is never changed by a state
// that acks more (the old set still holds what it held).
func TestLinAckedIsASet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	for round := 0; round < 200; round++ {
		n := rng.IntN(64)
		keys := make([]groupOffsetKey, n)
		for i := range keys {
			keys[i] = groupOffsetKey{group: fmt.Sprintf("g%d", rng.IntN(3)), offset: uint64(rng.IntN(40))}
		}
		var a, b *linAcked
		want := map[groupOffsetKey]bool{}
		var history []*linAcked
		for _, k := range keys {
			a = a.with(k.group, k.offset)
			want[k] = true
			history = append(history, a)
		}
		for _, i := range rng.Perm(n) {
			b = b.with(keys[i].group, keys[i].offset)
		}
		if a.size() != len(want) || !a.equal(b) || !b.equal(a) {
			t.Fatalf("round %d: size %d, want %d; equal to the set built in another order: %v", round, a.size(), len(want), a.equal(b))
		}
		checkTreap(t, a)
		for g := 0; g < 3; g++ {
			for o := uint64(0); o < 40; o++ {
				k := groupOffsetKey{fmt.Sprintf("g%d", g), o}
				if a.has(k.group, k.offset) != want[k] {
					t.Fatalf("round %d: has %v = %v, want %v", round, k, !want[k], want[k])
				}
				if !want[k] && a.equal(a.with(k.group, k.offset)) {
					t.Fatalf("round %d: a set equals itself with %v more", round, k)
				}
			}
		}
		for i, h := range history { // the sets an earlier state held are unchanged
			if h.size() != distinct(keys[:i+1]) {
				t.Fatalf("round %d: the set after ack %d now holds %d offsets, want %d", round, i, h.size(), distinct(keys[:i+1]))
			}
		}
	}
}

// checkTreap fails t unless a's keys ascend in order, every node is above
// its children and every count is its subtree's.
func checkTreap(t *testing.T, a *linAcked) {
	t.Helper()
	var prev *groupOffsetKey
	var walk func(x *linAcked) int
	walk = func(x *linAcked) int {
		if x == nil {
			return 0
		}
		for _, c := range []*linAcked{x.left, x.right} {
			if c != nil && linAckedAbove(c, x) {
				t.Fatalf("child %v above its parent %v", c.key, x.key)
			}
		}
		n := walk(x.left)
		if prev != nil && !lessGroupOffset(*prev, x.key) {
			t.Fatalf("keys out of order: %v then %v", *prev, x.key)
		}
		k := x.key
		prev = &k
		n += 1 + walk(x.right)
		if n != x.n {
			t.Fatalf("node %v counts %d, its subtree holds %d", x.key, x.n, n)
		}
		return n
	}
	walk(a)
}

// distinct counts the distinct keys of ks.
func distinct(ks []groupOffsetKey) int {
	m := map[groupOffsetKey]bool{}
	for _, k := range ks {
		m[k] = true
	}
	return len(m)
}

// TestLinAckedShares: acking 1,024 offsets one after the other makes each
// new set share all but a few nodes (about the tree's depth) with the set
// before, so the search's states cost O(n log n) nodes in all where
// copying the set at every ack cost n²/2 (half a million here).
func TestLinAckedShares(t *testing.T) {
	var a *linAcked
	made := 0
	for o := uint64(0); o < 1024; o++ {
		before := nodesOf(a)
		a = a.with("fulfilment", o)
		for x := range nodesOf(a) {
			if !before[x] {
				made++
			}
		}
	}
	if a.size() != 1024 || made > 1024*3*10 {
		t.Fatalf("%d offsets, %d nodes made for them: want at most 3 x depth (10) per ack", a.size(), made)
	}
}

// nodesOf is the set of a's nodes.
func nodesOf(a *linAcked) map[*linAcked]bool {
	out := map[*linAcked]bool{}
	var walk func(x *linAcked)
	walk = func(x *linAcked) {
		if x != nil {
			out[x] = true
			walk(x.left)
			walk(x.right)
		}
	}
	walk(a)
	return out
}
