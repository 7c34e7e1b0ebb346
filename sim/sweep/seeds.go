package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Range is an inclusive range of seeds, First..Last, or First.. with no end
// (Open) for a sweep bounded by time instead.
type Range struct {
	First, Last uint64
	// Open means the range runs on from First until the sweep's time is up.
	Open bool
}

// ParseRange reads "A..B", "A.." (open) or a single seed "N"; seeds start at 1.
func ParseRange(s string) (Range, error) {
	lo, hi, dots := strings.Cut(s, "..")
	first, err := parseSeed(lo)
	if err != nil {
		return Range{}, fmt.Errorf("seed range %q refused: %w (want A..B, A.. or N)", s, err)
	}
	if !dots {
		return Range{First: first, Last: first}, nil
	}
	if hi == "" {
		return Range{First: first, Last: math.MaxUint64, Open: true}, nil
	}
	last, err := parseSeed(hi)
	if err != nil {
		return Range{}, fmt.Errorf("seed range %q refused: %w (want A..B, A.. or N)", s, err)
	}
	if last < first {
		return Range{}, fmt.Errorf("seed range %q refused: it ends before it starts", s)
	}
	return Range{First: first, Last: last}, nil
}

func parseSeed(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a seed", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("seed 0 is not allowed (seeds start at 1)")
	}
	return n, nil
}

// String renders the range as ParseRange reads it.
func (r Range) String() string {
	if r.Open {
		return fmt.Sprintf("%d..", r.First)
	}
	return fmt.Sprintf("%d..%d", r.First, r.Last)
}

// Contains reports whether seed lies in the range.
func (r Range) Contains(seed uint64) bool { return seed >= r.First && seed <= r.Last }

// Shard is part Index of Count (1-based): the seeds First+Index-1,
// First+Index-1+Count, … of a range. The zero Shard means the whole range.
type Shard struct{ Index, Count uint64 }

// ShardCountMax bounds how many parts one sweep may be split into.
const ShardCountMax = 100_000

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, errI := strconv.ParseUint(is, 10, 64)
	n, errN := strconv.ParseUint(ns, 10, 64)
	switch {
	case !ok || errI != nil || errN != nil:
		return Shard{}, fmt.Errorf("shard %q refused: want i/n, e.g. 2/8", s)
	case n < 1 || n > ShardCountMax:
		return Shard{}, fmt.Errorf("shard %q refused: the count must be 1..%d", s, ShardCountMax)
	case i < 1 || i > n:
		return Shard{}, fmt.Errorf("shard %q refused: the index must be 1..%d", s, n)
	}
	return Shard{Index: i, Count: n}, nil
}

// whole returns s, or 1/1 for the zero Shard.
func (s Shard) whole() Shard {
	if s.Count == 0 {
		return Shard{Index: 1, Count: 1}
	}
	return s
}

// String renders the shard as ParseShard reads it.
func (s Shard) String() string {
	w := s.whole()
	return fmt.Sprintf("%d/%d", w.Index, w.Count)
}

// Schedule is the seeds one shard of a range runs, in increasing order.
type Schedule struct {
	Range Range
	Shard Shard
}

// Has reports whether seed is one of the schedule's.
func (c Schedule) Has(seed uint64) bool {
	sh := c.Shard.whole()
	return c.Range.Contains(seed) && (seed-c.Range.First)%sh.Count == sh.Index-1
}

// First is the schedule's first seed; ok is false when it has none.
func (c Schedule) First() (seed uint64, ok bool) {
	sh := c.Shard.whole()
	s := c.Range.First + (sh.Index - 1)
	if s < c.Range.First || s > c.Range.Last { // overflow or past the end
		return 0, false
	}
	return s, true
}

// Next is the seed after seed; ok is false past the end.
func (c Schedule) Next(seed uint64) (next uint64, ok bool) {
	n := seed + c.Shard.whole().Count
	if n < seed || n > c.Range.Last {
		return 0, false
	}
	return n, true
}

// Count is how many seeds the schedule has; known is false for an open range.
func (c Schedule) Count() (n uint64, known bool) {
	if c.Range.Open {
		return 0, false
	}
	first, ok := c.First()
	if !ok {
		return 0, true
	}
	return (c.Range.Last-first)/c.Shard.whole().Count + 1, true
}
