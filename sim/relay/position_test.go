package relay

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestPositionFile: positions round-trip; a flipped bit anywhere, a cut
// file or a file for another scope count is refused as errNoPosition,
// never read as a position (the relay then starts over, which is safe).
func TestPositionFile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		next := rapid.SliceOfN(rapid.Uint64(), 1, 16).Draw(t, "next")
		b := encodePositions(next)
		got, err := decodePositions(b, len(next))
		if err != nil || len(got) != len(next) {
			t.Fatalf("decode: %v %v", got, err)
		}
		for i := range next {
			if got[i] != next[i] {
				t.Fatalf("scope %d: %d, want %d", i, got[i], next[i])
			}
		}
		bit := rapid.IntRange(0, 8*len(b)-1).Draw(t, "bit")
		bad := append([]byte(nil), b...)
		bad[bit/8] ^= 1 << (bit % 8)
		if _, err := decodePositions(bad, len(next)); !errors.Is(err, errNoPosition) {
			t.Fatalf("bit %d flipped: %v", bit, err)
		}
		if _, err := decodePositions(b[:len(b)-1], len(next)); !errors.Is(err, errNoPosition) {
			t.Fatalf("cut file: %v", err)
		}
		if _, err := decodePositions(b, len(next)+1); !errors.Is(err, errNoPosition) {
			t.Fatalf("another scope count: %v", err)
		}
	})
}
