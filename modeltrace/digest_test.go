package modeltrace

import (
	"bytes"
	"testing"
)

// TestDigestTellsNearInputsApart: inputs that differ in one bit, in one
// trailing zero byte or in length digest differently, across word edges;
// only the empty input digests to 0; and the digest reads only its input.
func TestDigestTellsNearInputsApart(t *testing.T) {
	seen := map[uint64][]byte{}
	note := func(b []byte) {
		d := Digest(b)
		if (d == 0) != (len(b) == 0) {
			t.Fatalf("Digest(%x) = %d", b, d)
		}
		if prev, ok := seen[d]; ok && !bytes.Equal(prev, b) {
			t.Fatalf("Digest(%x) = Digest(%x) = %x", b, prev, d)
		}
		seen[d] = bytes.Clone(b)
	}
	for n := 0; n <= 33; n++ {
		base := make([]byte, n)
		for i := range base {
			base[i] = byte(i * 7)
		}
		note(base)
		for i := range base {
			for bit := 0; bit < 8; bit++ {
				b := bytes.Clone(base)
				b[i] ^= 1 << bit
				note(b)
			}
		}
		note(append(bytes.Clone(base), 0)) // the same words, one zero byte longer
	}
	b := []byte("a proposal's data")
	d := Digest(b)
	if Digest(append(b[:len(b):len(b)], 'x')[:len(b)]) != d || Digest(bytes.Clone(b)) != d {
		t.Fatal("a digest depends on more than its input's bytes")
	}
}
