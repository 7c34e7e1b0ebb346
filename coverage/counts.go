package coverage

import (
	"fmt"
	"sort"
)

// Point names one counted path; see points.go for the declared ones.
type Point string

// Counts holds how often each point was reached in one run (or, merged,
// in a sweep). The zero value is not usable; build it with New. A nil
// *Counts ignores every Add.
type Counts struct {
	n map[Point]uint64
}

// New returns empty counts.
func New() *Counts { return &Counts{n: map[Point]uint64{}} }

// Add counts one visit of p. It does nothing on a nil receiver.
func (c *Counts) Add(p Point) { c.AddN(p, 1) }

// AddN counts n visits of p. It does nothing on a nil receiver or for n 0.
func (c *Counts) AddN(p Point, n uint64) {
	if c == nil || n == 0 {
		return
	}
	if p == "" {
		panic("coverage: empty point name")
	}
	c.n[p] += n
}

// Get returns how often p was reached (0 for a nil receiver).
func (c *Counts) Get(p Point) uint64 {
	if c == nil {
		return 0
	}
	return c.n[p]
}

// Merge adds every count of o into c (a sweep sums its runs).
func (c *Counts) Merge(o *Counts) {
	for _, e := range o.Sorted() {
		c.AddN(e.Point, e.Count)
	}
}

// Entry is one point and its count.
type Entry struct {
	Point Point
	Count uint64
}

// Sorted lists the points reached, by name: the only order in which counts
// leave this package, so map order never reaches output.
func (c *Counts) Sorted() []Entry {
	if c == nil {
		return nil
	}
	out := make([]Entry, 0, len(c.n))
	for p, k := range c.n { //det:ok sorted below
		out = append(out, Entry{Point: p, Count: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Point < out[j].Point })
	return out
}

// Map returns the counts keyed by name, for JSON (encoding/json writes
// map keys sorted).
func (c *Counts) Map() map[string]uint64 {
	out := map[string]uint64{}
	for _, e := range c.Sorted() {
		out[string(e.Point)] = e.Count
	}
	return out
}

// FromMap rebuilds counts from Map's form (a report read back), refusing
// an empty name.
func FromMap(m map[string]uint64) (*Counts, error) {
	c := New()
	names := make([]string, 0, len(m))
	for name := range m { //det:ok sorted below
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" {
			return nil, fmt.Errorf("coverage: a point with an empty name refused")
		}
		c.AddN(Point(name), m[name])
	}
	return c, nil
}

// Missing lists the declared points that must sometimes happen and have
// count 0 in c, by name.
func (c *Counts) Missing() []Point {
	var out []Point
	for _, d := range Declared() {
		if d.Sometimes && c.Get(d.Point) == 0 {
			out = append(out, d.Point)
		}
	}
	return out
}
