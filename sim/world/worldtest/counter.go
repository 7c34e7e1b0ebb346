package worldtest

// This file holds the small protocol the world's tests run: a replicated
// max-counter. Node 0 increments its value on every tick; every node
// persists its value (with a checksum) and broadcasts it on each tick; a node
// adopts any larger value it hears. After a heal every node must catch up.

import (
	"encoding/binary"
	"errors"
	"hash/fnv"

	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/vfs"
)

// CounterTickNs is a counter's tick: 10 ms on the node's own clock.
const CounterTickNs = 10_000_000

// CounterMsg carries a value; it is a pointer type so duplicates are cloned.
type CounterMsg struct{ Value uint64 }

// Digest implements simapi.Message.
func (m *CounterMsg) Digest() uint64 { return m.Value*0x9e3779b97f4a7c15 + 1 }

// Clone implements simapi.Cloner.
func (m *CounterMsg) Clone() simapi.Message { c := *m; return &c }

func checksum(v uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
	return h.Sum64()
}

// NewCounter makes counter processes that report into stats.
func NewCounter(stats *CounterStats) func() simapi.Process {
	return func() simapi.Process { return &Counter{stats: stats} }
}

// CounterStats survives incarnations: what the tests observe.
type CounterStats struct {
	CorruptSeen      int  // boots that found a checksum mismatch
	StopAfterRestart bool // planted liveness bug: a restarted node never ticks
	Sent, Received   int
}

// Counter is one incarnation of a counter node; Value is what it holds.
type Counter struct {
	env   simapi.Env
	Value uint64
	stats *CounterStats
}

// Boot implements simapi.Process: load the stored value and start ticking.
func (c *Counter) Boot(env simapi.Env) {
	c.env = env
	c.Value = c.load()
	if c.stats.StopAfterRestart && env.Incarnation() > 1 {
		return
	}
	env.AfterNs(CounterTickNs, c.tick)
}

func (c *Counter) load() uint64 {
	b, err := vfs.ReadAll(c.env.FS(), "counter")
	if err != nil || len(b) != 16 {
		return 0
	}
	v := binary.LittleEndian.Uint64(b)
	if checksum(v) != binary.LittleEndian.Uint64(b[8:]) {
		c.stats.CorruptSeen++
		return 0
	}
	return v
}

func (c *Counter) store() {
	f, err := c.env.FS().Create("counter")
	if err != nil {
		return
	}
	defer f.Close()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], c.Value)
	binary.LittleEndian.PutUint64(b[8:], checksum(c.Value))
	if _, err := f.Write(b[:]); err != nil {
		return
	}
	if err := f.Sync(); err != nil && !errors.Is(err, world.ErrInjected) {
		panic(err)
	}
	if err := c.env.FS().SyncDir("."); err != nil && !errors.Is(err, world.ErrInjected) {
		panic(err)
	}
}

func (c *Counter) tick() {
	if c.env.ID() == 0 {
		c.Value++
		c.store()
	}
	for to := 0; to < c.env.Nodes(); to++ {
		if to != c.env.ID() {
			c.stats.Sent++
			c.env.Send(to, &CounterMsg{Value: c.Value})
		}
	}
	c.env.AfterNs(CounterTickNs, c.tick)
}

// Receive implements simapi.Process: adopt a larger value.
func (c *Counter) Receive(from int, msg simapi.Message) {
	c.stats.Received++
	m := msg.(*CounterMsg)
	if m.Value > c.Value {
		c.Value = m.Value
		c.store()
	}
}

// CounterWorld builds a world of n counter nodes.
func CounterWorld(seed uint64, n int, record bool, stats *CounterStats) (*world.World, error) {
	specs := make([]world.NodeSpec, n)
	for i := range specs {
		specs[i] = world.NodeSpec{Name: "counter", New: NewCounter(stats)}
	}
	return world.New(world.Config{
		Seed:        seed,
		Nodes:       specs,
		Link:        world.LinkConfig{LatencyMinNs: 100_000, LatencyMaxNs: 2_000_000},
		RecordTrace: record,
	})
}

// CounterGoal is met when every node is up and holds at least target.
func CounterGoal(w *world.World, target uint64) func() (bool, string) {
	return func() (bool, string) {
		for i := 0; i < w.Nodes(); i++ {
			if !w.Up(i) {
				return false, "node down or paused"
			}
			if v := w.Process(i).(*Counter).Value; v < target {
				return false, "a node lags the target value"
			}
		}
		return true, ""
	}
}

// MaxValue is the largest value any running node holds.
func MaxValue(w *world.World) uint64 {
	var m uint64
	for i := 0; i < w.Nodes(); i++ {
		if p, ok := w.Process(i).(*Counter); ok && p.Value > m {
			m = p.Value
		}
	}
	return m
}
