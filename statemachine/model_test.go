package statemachine

// The reference model for the rapid test: written independently of the
// Shard and as plainly as possible. The log is a slice of every record ever
// written (offset = index), retention is one integer, state is a fold, and
// a consumer group is a few maps. Nothing here is tuned for speed.

import (
	"errors"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

type modelValue struct {
	value   string
	version uint64
}

type modelGroup struct {
	next     uint64
	acked    map[uint64]bool
	expiry   map[uint64]int64 // delivered offsets, with their lease expiry
	redelivs int
}

type model struct {
	cfg    Config
	feat   bool
	recs   []felix.Record
	first  uint64 // offsets below are dropped; the state view folds recs[first:]
	groups map[string]*modelGroup
}

func newModel(cfg Config) *model {
	return &model{cfg: cfg, groups: map[string]*modelGroup{}}
}

func (m *model) tail() uint64 { return uint64(len(m.recs)) }

// fold applies recs[from:] to an empty state.
func (m *model) fold(from uint64) map[string]modelValue {
	st := map[string]modelValue{}
	for off := from; off < m.tail(); off++ {
		for _, op := range m.recs[off].Ops {
			if op.Kind == felix.OpPut {
				st[op.Key] = modelValue{string(op.Value), off}
			} else {
				delete(st, op.Key)
			}
		}
	}
	return st
}

func modelValid(r *felix.Record) bool {
	if r.Event != felix.EventPublish && r.Event != felix.EventEnqueue {
		return false
	}
	for _, op := range r.Ops {
		if op.Key == "" || (op.Kind != felix.OpPut && op.Kind != felix.OpDelete) || (op.Kind == felix.OpDelete && len(op.Value) > 0) {
			return false
		}
	}
	return true
}

// apply returns the expected result, or the expected sentinel error.
func (m *model) apply(r felix.Record) (Result, error) {
	switch {
	case !modelValid(&r):
		return Result{}, felix.ErrInvalidRecord
	case len(r.Ops) > 0 && m.cfg.Kind == StreamEphemeral:
		return Result{}, ErrEphemeralRefusesCommit
	case len(r.Ops) > 0 && !m.feat:
		return Result{}, ErrFeatureNotFinalized
	case r.Conditional && r.ExpectedOffset != m.tail():
		return Refused(m.tail()), nil
	case m.tail()-m.first == uint64(m.cfg.RetainedLenMax) && m.groupOwes(m.first):
		return Result{}, ErrWindowHeld
	}
	m.recs = append(m.recs, r)
	if m.tail()-m.first > uint64(m.cfg.RetainedLenMax) {
		m.first = m.tail() - uint64(m.cfg.RetainedLenMax)
	}
	return Written(m.tail() - 1), nil
}

// groupOwes reports whether some group has not committed offset off.
func (m *model) groupOwes(off uint64) bool {
	for _, g := range m.groups {
		if g.committed() <= off {
			return true
		}
	}
	return false
}

func (m *model) windowStart() uint64 {
	if m.tail()-m.first > uint64(m.cfg.ReplayWindowLenMax) {
		return m.tail() - uint64(m.cfg.ReplayWindowLenMax)
	}
	return m.first
}

func (m *model) readFrom(off uint64, n int) ([]uint64, error) {
	if off < m.windowStart() {
		return nil, ErrBeforeWindow
	}
	if off > m.tail() {
		return nil, ErrBeyondTail
	}
	var out []uint64
	for o := off; o < m.tail() && len(out) < n; o++ {
		out = append(out, o)
	}
	return out, nil
}

func (g *modelGroup) inFlight() []uint64 {
	var out []uint64
	for o := range g.expiry {
		if !g.acked[o] {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (g *modelGroup) committed() uint64 {
	if f := g.inFlight(); len(f) > 0 {
		return f[0]
	}
	return g.next
}

type modelDelivery struct {
	offset      uint64
	expiryNs    int64
	redelivered bool
}

func (m *model) fetch(c GroupFetch) ([]modelDelivery, error) {
	g := m.groups[c.Group]
	if g == nil {
		if len(m.groups) >= m.cfg.GroupsMax {
			return nil, ErrTooManyGroups
		}
		g = &modelGroup{next: m.first, acked: map[uint64]bool{}, expiry: map[uint64]int64{}}
	}
	flight := g.inFlight()
	var again []uint64
	for _, o := range flight {
		if g.expiry[o] <= c.NowNs && len(again) < c.EntriesMax {
			again = append(again, o)
		}
	}
	room := min(c.EntriesMax-len(again), m.cfg.LeasesPerGroupMax-len(flight))
	var fresh []uint64
	for o := g.next; o < m.tail() && len(fresh) < room; o++ {
		fresh = append(fresh, o)
	}
	for _, o := range append(append([]uint64{}, again...), fresh...) {
		if o < m.first {
			return nil, ErrDropped
		}
	}
	m.groups[c.Group] = g
	var out []modelDelivery
	exp := c.NowNs + c.LeaseNs
	for _, o := range again {
		g.expiry[o] = exp
		out = append(out, modelDelivery{o, exp, true})
	}
	for _, o := range fresh {
		g.expiry[o] = exp
		g.next = o + 1
		out = append(out, modelDelivery{o, exp, false})
	}
	return out, nil
}

func (m *model) ack(c GroupAck) error {
	g := m.groups[c.Group]
	if g == nil {
		return ErrUnknownGroup
	}
	if c.Offset >= g.next {
		return ErrNotDelivered
	}
	g.acked[c.Offset] = true
	return nil
}

func (m *model) dropBefore(off uint64) error {
	if off > m.tail() {
		return ErrBeyondTail
	}
	if off > m.first {
		m.first = off
	}
	return nil
}

// sameErr reports whether got matches the expected sentinel (nil for nil).
func sameErr(got, want error) bool {
	if want == nil {
		return got == nil
	}
	return errors.Is(got, want)
}
