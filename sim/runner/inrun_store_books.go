package runner

import (
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// scopeBook is what the store check keeps of one scope of one broker
// between two comparisons: what the last one verified, and where each
// side's list of changes stood then.
type scopeBook struct {
	scope    felix.Scope
	verified properties.ScopeVerified
	// mark is where memory's shard and its list of changes stood then.
	mark node.ShardMark
	// generation is the follower's then (node.DurableStore.Generation).
	generation uint64
}

// scopeBooks are one broker's scope books, per raft group, each group's
// ascending by scope: as many as the group's scopes in memory at its last
// comparison (a scope gone from memory is dropped with its book).
type scopeBooks struct {
	groups map[uint64][]scopeBook
	// next are the books of the comparison under way, per group.
	next map[uint64][]scopeBook
}

// booksOf returns broker id's books.
func (sc *storeCheck) booksOf(id uint64) *scopeBooks {
	b := sc.books[id]
	if b == nil {
		b = &scopeBooks{groups: map[uint64][]scopeBook{}, next: map[uint64][]scopeBook{}}
		sc.books[id] = b
	}
	return b
}

// lookup returns the book of scope in group, or nil.
func (b *scopeBooks) lookup(group uint64, scope felix.Scope) *scopeBook {
	bs := b.groups[group]
	i, ok := slices.BinarySearchFunc(bs, scope, func(x scopeBook, s felix.Scope) int {
		switch {
		case x.scope.Less(s):
			return -1
		case s.Less(x.scope):
			return 1
		}
		return 0
	})
	if !ok {
		return nil
	}
	return &bs[i]
}

// prepare sets out the books of g's scopes (memory's) for the comparison
// under way: a copy of each one's last book, or a new one that has
// verified nothing.
func (b *scopeBooks) prepare(g *node.GroupImage) {
	next := make([]scopeBook, len(g.Scopes))
	for k := range g.Scopes {
		next[k] = scopeBook{scope: g.Scopes[k].Scope}
		if was := b.lookup(g.ID, next[k].scope); was != nil {
			next[k] = *was
		}
	}
	b.next[g.ID] = next
}

// keep makes the comparison's books the last ones: each scope's verified
// rows and the marks both sides' changes were read up to.
func (b *scopeBooks) keep(memory *node.StoreImage, generation uint64) {
	for i := range memory.Groups {
		g := &memory.Groups[i]
		next := b.next[g.ID]
		for k := range next {
			next[k].mark, next[k].generation = g.Scopes[k].Mark(), generation
		}
		b.groups[g.ID] = next
		delete(b.next, g.ID)
	}
}
