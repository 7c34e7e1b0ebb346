// Package prng is felixsim's seeded pseudo-random generator: a small, fast
// xoshiro256** whose named streams are derived from one run seed by hashing,
// so that adding or consuming one stream never reshuffles another.
//
// prng imports nothing from felixsim and nothing that reads the wall clock
// or the operating system's entropy (no math/rand, no crypto/rand).
package prng
