package sim

// This file holds the small protocol the world's own tests run: a replicated
// max-counter. Node 0 increments its value on every tick; every node
// persists its value (with a checksum) and broadcasts it on each tick; a node
// adopts any larger value it hears. After a heal every node must catch up.

import (
	"encoding/binary"
	"errors"
	"hash/fnv"

	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/vfs"
)

const counterTickNs = 10_000_000 // 10 ms on the node's own clock

// counterMsg carries a value; it is a pointer type so duplicates are cloned.
type counterMsg struct{ value uint64 }

func (m *counterMsg) Digest() uint64        { return m.value*0x9e3779b97f4a7c15 + 1 }
func (m *counterMsg) Clone() simapi.Message { c := *m; return &c }
func checksum(v uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
	return h.Sum64()
}
func newCounter(stats *counterStats) func() simapi.Process {
	return func() simapi.Process { return &counter{stats: stats} }
}

// counterStats survives incarnations: what the tests observe.
type counterStats struct {
	corruptSeen      int  // boots that found a checksum mismatch
	stopAfterRestart bool // planted liveness bug: a restarted node never ticks
	sent, received   int
}

type counter struct {
	env   simapi.Env
	value uint64
	stats *counterStats
}

func (c *counter) Boot(env simapi.Env) {
	c.env = env
	c.value = c.load()
	if c.stats.stopAfterRestart && env.Incarnation() > 1 {
		return
	}
	env.AfterNs(counterTickNs, c.tick)
}

func (c *counter) load() uint64 {
	b, err := vfs.ReadAll(c.env.FS(), "counter")
	if err != nil || len(b) != 16 {
		return 0
	}
	v := binary.LittleEndian.Uint64(b)
	if checksum(v) != binary.LittleEndian.Uint64(b[8:]) {
		c.stats.corruptSeen++
		return 0
	}
	return v
}

func (c *counter) store() {
	f, err := c.env.FS().Create("counter")
	if err != nil {
		return
	}
	defer f.Close()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], c.value)
	binary.LittleEndian.PutUint64(b[8:], checksum(c.value))
	if _, err := f.Write(b[:]); err != nil {
		return
	}
	if err := f.Sync(); err != nil && !errors.Is(err, ErrInjected) {
		panic(err)
	}
	if err := c.env.FS().SyncDir("."); err != nil && !errors.Is(err, ErrInjected) {
		panic(err)
	}
}

func (c *counter) tick() {
	if c.env.ID() == 0 {
		c.value++
		c.store()
	}
	for to := 0; to < c.env.Nodes(); to++ {
		if to != c.env.ID() {
			c.stats.sent++
			c.env.Send(to, &counterMsg{value: c.value})
		}
	}
	c.env.AfterNs(counterTickNs, c.tick)
}

func (c *counter) Receive(from int, msg simapi.Message) {
	c.stats.received++
	m := msg.(*counterMsg)
	if m.value > c.value {
		c.value = m.value
		c.store()
	}
}

// counterWorld builds a world of n counter nodes.
func counterWorld(seed uint64, n int, record bool, stats *counterStats) (*World, error) {
	specs := make([]NodeSpec, n)
	for i := range specs {
		specs[i] = NodeSpec{Name: "counter", New: newCounter(stats)}
	}
	return New(Config{
		Seed:        seed,
		Nodes:       specs,
		Link:        LinkConfig{LatencyMinNs: 100_000, LatencyMaxNs: 2_000_000},
		RecordTrace: record,
	})
}

// counterGoal is met when every node is up and holds at least target.
func counterGoal(w *World, target uint64) func() (bool, string) {
	return func() (bool, string) {
		for i := 0; i < w.Nodes(); i++ {
			if !w.Up(i) {
				return false, "node down or paused"
			}
			if v := w.Process(i).(*counter).value; v < target {
				return false, "a node lags the target value"
			}
		}
		return true, ""
	}
}

// maxValue is the largest value any running node holds.
func maxValue(w *World) uint64 {
	var m uint64
	for i := 0; i < w.Nodes(); i++ {
		if p, ok := w.Process(i).(*counter); ok && p.value > m {
			m = p.value
		}
	}
	return m
}
