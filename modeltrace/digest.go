package modeltrace

import "encoding/binary"

// Digest hashes bytes to 64 bits: a proposal's data names it in the trace.
// It mixes the length, then eight bytes at a time (the last word padded
// with zeros), each word through splitmix64's finalizer: every broker
// digests every entry it persists and applies, so a per-byte hash showed
// in profiles. An empty input (raft's empty entry) digests to 0.
func Digest(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	h := Mix64(uint64(len(b)))
	for ; len(b) >= 8; b = b[8:] {
		h = Mix64(h ^ binary.LittleEndian.Uint64(b))
	}
	if len(b) > 0 {
		var w uint64
		for i, c := range b {
			w |= uint64(c) << (8 * i)
		}
		h = Mix64(h ^ w)
	}
	if h == 0 {
		h = 1 // 0 is reserved for the empty entry
	}
	return h
}

// Mix64 is splitmix64's finalizer: a bijection on 64 bits in which each
// input bit flips about half the output bits.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Hasher folds fields into a digest, for a commit's event and operations.
type Hasher struct{ h uint64 }

// NewHasher starts a digest.
func NewHasher() Hasher { return Hasher{h: 14695981039346656037} }

// Bytes folds b and its length.
func (x *Hasher) Bytes(b []byte) {
	x.Uint(uint64(len(b)))
	for _, c := range b {
		x.h ^= uint64(c)
		x.h *= 1099511628211
	}
}

// String folds s and its length.
func (x *Hasher) String(s string) {
	x.Uint(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		x.h ^= uint64(s[i])
		x.h *= 1099511628211
	}
}

// Uint folds v.
func (x *Hasher) Uint(v uint64) {
	for i := 0; i < 8; i++ {
		x.h ^= v & 0xff
		x.h *= 1099511628211
		v >>= 8
	}
}

// Sum returns the digest.
func (x *Hasher) Sum() uint64 { return x.h }

// LinesDigest digests a trace file's lines in order (each without its
// newline): the end line's digest of every line before it.
type LinesDigest struct{ h uint64 }

// Add folds one line.
func (d *LinesDigest) Add(line []byte) { d.h = Mix64(d.h ^ Digest(line) ^ 0x9e3779b97f4a7c15) }

// Sum returns the digest of the lines added so far.
func (d *LinesDigest) Sum() uint64 { return d.h }
