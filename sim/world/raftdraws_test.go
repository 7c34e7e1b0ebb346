package world

import (
	"bytes"
	"testing"
)

// raftRead reads n bytes from d as node runs at atNs.
func raftRead(d *raftDraws, node int, atNs int64, n int) []byte {
	d.w.curNode, d.w.nowNs = node, atNs
	p := make([]byte, n)
	if got, err := d.Read(p); got != n || err != nil {
		panic("raftDraws.Read fell short")
	}
	return p
}

// TestRaftDrawsOfOneNodeMoveNoOther: the election-timeout bytes node 1
// reads are the same whether or not node 0, or the harness, read before
// it at the same instants (an election a removed fault no longer causes);
// with one stream shared by every node, as crypto/rand.Reader was before,
// they would shift.
func TestRaftDrawsOfOneNodeMoveNoOther(t *testing.T) {
	busy := newRaftDraws(5, 2)
	busy.w = &World{}
	raftRead(busy, 0, 10, 8)
	raftRead(busy, -1, 10, 8)
	a1 := raftRead(busy, 1, 10, 8)
	raftRead(busy, 0, 20, 8)
	a2 := raftRead(busy, 1, 20, 8)
	again := raftRead(busy, 1, 20, 8)

	quiet := newRaftDraws(5, 2)
	quiet.w = &World{}
	b1 := raftRead(quiet, 1, 10, 8)
	b2 := raftRead(quiet, 1, 20, 8)
	if !bytes.Equal(a1, b1) || !bytes.Equal(a2, b2) {
		t.Fatalf("node 1's reads moved with node 0's: %x %x, alone %x %x", a1, a2, b1, b2)
	}
	if bytes.Equal(a2, again) || bytes.Equal(a1, a2) {
		t.Fatalf("node 1's reads repeat: %x at 10 ns, %x and %x at 20 ns", a1, a2, again)
	}
}
