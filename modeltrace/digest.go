package modeltrace

// Digest hashes bytes to 64 bits (FNV-1a): a proposal's data names it in
// the trace. An empty input (raft's empty entry) digests to 0.
func Digest(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	if h == 0 {
		h = 1 // 0 is reserved for the empty entry
	}
	return h
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
