package prng

import (
	"fmt"
	"math/bits"
)

// Rand is a xoshiro256** generator. The zero value is invalid (all-zero
// state never leaves zero); build one with New or Derive.
//
// Invariant: s is never all zero.
type Rand struct {
	s [4]uint64
}

// splitmix64 advances *x and returns the next splitmix64 output; it expands
// a 64-bit seed into the xoshiro state.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// New returns a generator whose whole sequence is fixed by seed.
func New(seed uint64) *Rand {
	r := &Rand{}
	r.Reseed(seed)
	return r
}

// Reseed resets r to the sequence New(seed) would produce.
func (r *Rand) Reseed(seed uint64) {
	x := seed
	for i := range r.s {
		r.s[i] = splitmix64(&x)
	}
	if r.s == [4]uint64{} {
		r.s[0] = 1 // splitmix64 never yields four zeros in a row; stay safe anyway.
	}
}

// StreamSeed derives the seed of the stream called name from the run seed.
// It hashes the name (FNV-1a 64) and mixes it with seed, so the result
// depends on nothing but these two values.
func StreamSeed(seed uint64, name string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 0x100000001b3
	}
	x := seed ^ bits.RotateLeft64(h, 17)
	splitmix64(&x)
	return splitmix64(&x) ^ h
}

// KeyedSeed derives, from a stream's seed, the seed of the draws keyed by
// (a, b): a counter-based split, so the draws under one key depend on the
// stream and the key alone, not on how many other keys were drawn before.
func KeyedSeed(stream, a, b uint64) uint64 {
	x := stream ^ bits.RotateLeft64(a, 23)
	x = splitmix64(&x) ^ b
	return splitmix64(&x)
}

// Derive returns the stream called name of the run with the given seed.
func Derive(seed uint64, name string) *Rand { return New(StreamSeed(seed, name)) }

// Uint64 returns the next 64 pseudo-random bits.
func (r *Rand) Uint64() uint64 {
	s := &r.s
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// Uint64n returns a uniform value in [0, n); n must be positive.
func (r *Rand) Uint64n(n uint64) uint64 {
	if n == 0 {
		panic("prng: Uint64n called with n = 0")
	}
	// Lemire's multiply-and-reject: unbiased, usually one multiplication.
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// Intn returns a uniform value in [0, n); n must be positive.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("prng: Intn called with n = %d, want > 0", n))
	}
	return int(r.Uint64n(uint64(n)))
}

// Int63nRange returns a uniform value in [lo, hi]; it requires lo <= hi.
func (r *Rand) Int63nRange(lo, hi int64) int64 {
	if lo > hi {
		panic(fmt.Sprintf("prng: Int63nRange(%d, %d) with lo > hi", lo, hi))
	}
	span := uint64(hi - lo)
	if span == ^uint64(0) {
		return int64(r.Uint64())
	}
	return lo + int64(r.Uint64n(span+1))
}

// Float64 returns a uniform value in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// ChancePpm reports true with probability ppm parts per million; ppm <= 0
// never and ppm >= 1,000,000 always.
func (r *Rand) ChancePpm(ppm int64) bool {
	if ppm <= 0 {
		return false
	}
	if ppm >= 1_000_000 {
		return true
	}
	return int64(r.Uint64n(1_000_000)) < ppm
}

// Read fills p with pseudo-random bytes. It never returns a short read or an
// error, which is what a replacement for crypto/rand.Reader must promise.
func (r *Rand) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		v := r.Uint64()
		for j := i; j < len(p) && j < i+8; j++ {
			p[j] = byte(v)
			v >>= 8
		}
	}
	return len(p), nil
}
