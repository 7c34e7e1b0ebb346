package cluster

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/wire"
)

// broker is one incarnation of a broker process: it opens a node.Node on
// the process's durable FS, drives its ticks on the process's own clock
// and turns simulated messages into node calls.
type broker struct {
	c   *Cluster
	id  int
	env simapi.Env
	n   *node.Node
	// processArmed is set while a batch-window timer is pending;
	// batched counts inputs taken since the last processing.
	processArmed bool
	batched      int
	// tickFn and windowFn are b.tick and b.windowClosed as func values,
	// made once per incarnation so arming a timer allocates no closure.
	tickFn, windowFn func()
	// writes maps a write request to its raft group until it is answered
	// (see noteRequest); len(writes) <= WritesNotedMax.
	writes map[writeKey]uint64
}

// BatchInputsMax caps the inputs a broker holds for one batch window: the
// batch is processed at once when it fills, whatever the window's timer
// says. Besides bounding the batch, this keeps a broker whose clock jumped
// backwards (its timers then wait for the clock to catch up) answering
// its peers.
const BatchInputsMax = 64

var _ simapi.Process = (*broker)(nil)
var _ node.Host = (*broker)(nil)

// Boot opens the node from the FS alone; a node that cannot open (its
// store refused, e.g. after a disk fault) asks to be restarted later.
func (b *broker) Boot(env simapi.Env) {
	b.env = env
	b.c.brokers[b.id] = b
	cfg := b.c.nodeConfig(b.id, env)
	n, err := node.Open(cfg, b, env.Incarnation())
	if err != nil {
		b.c.noteFailure(b.id, fmt.Errorf("boot %d: %w", env.Incarnation(), err))
		if errors.Is(err, logstore.ErrCorrupt) {
			b.c.cfg.Counts.Add(coverage.StoreCorruptDetected)
			// A corrupt store stays corrupt: booting again cannot help.
			// The operator replaces the disk, and the slot rejoins under
			// a new identity (see replace.go).
			b.c.replaceCorrupt(b.id)
			return
		}
		b.restartLater()
		return
	}
	b.n = n
	b.writes = map[writeKey]uint64{}
	b.c.countRecovery(n.StoreRecovery())
	b.tickFn, b.windowFn = b.tick, b.windowClosed
	env.AfterNs(b.c.cfg.TickNs, b.tickFn)
}

func (b *broker) tick() {
	b.n.Tick()
	if b.n.HasWork() {
		// Most ticks (a follower's, a leader's between heartbeats) leave
		// raft with nothing to do: they open no batch window.
		b.inputTaken()
	}
	if b.checkFailed() {
		return
	}
	b.env.AfterNs(b.c.cfg.TickNs, b.tickFn)
}

// inputTaken arms the batch window after an input, when batching, and
// processes at once when the batch is full.
func (b *broker) inputTaken() {
	if b.c.cfg.BatchWindowNs <= 0 {
		return
	}
	b.batched++
	if b.batched >= BatchInputsMax {
		b.process()
		return
	}
	if b.processArmed {
		return
	}
	b.processArmed = true
	b.env.AfterNs(b.c.cfg.BatchWindowNs, b.windowFn)
}

// windowClosed processes the inputs of the batch window that just closed.
func (b *broker) windowClosed() {
	b.processArmed = false
	b.process()
	b.checkFailed()
}

func (b *broker) process() {
	b.batched = 0
	b.n.Process()
}

// checkFailed turns a fail-stopped node into a crash and a later restart.
func (b *broker) checkFailed() bool {
	if b.n == nil || b.n.Failed() == nil {
		return b.n == nil
	}
	b.c.noteFailure(b.id, b.n.Failed())
	b.c.cfg.Counts.Add(coverage.BrokerFailStop)
	b.restartLater()
	return true
}

// restartLater kills this incarnation (after the current event) and boots
// a fresh one later: RestartAfterFailNs, doubled for each failure of this
// broker that followed its previous one within FailStreakWindowNs, at most
// RestartBackoffMaxShift times (a crash-looping broker backs off, as a
// service manager would, instead of replaying its store five times a
// second). The crash keeps a sector prefix of the unsynced tail that stops
// short of the failed transaction's commit marker
// (world.World.KillTearingUnsynced): a store that failed a write or fsync
// holds one, and the next boot's recovery must cut it.
func (b *broker) restartLater() {
	w, id := b.c.World, b.id
	inc := b.env.Incarnation()
	w.At(w.NowNs(), uint64(id), func() {
		if cur := b.c.brokers[id]; cur != nil && cur.env.Incarnation() == inc {
			w.KillTearingUnsynced(id, b.c.restartDelayNs(id))
		}
	})
}

// Receive hands a message to the node.
func (b *broker) Receive(from int, msg simapi.Message) {
	if b.n == nil {
		return
	}
	switch m := msg.(type) {
	case *PeerMsg:
		b.n.HandlePeer(m.Batch())
	case *RequestMsg:
		b.c.deliveries.note(from, m.Req)
		b.noteRequest(from, m.Req)
		b.n.HandleRequest(uint64(from), m.Req)
	case *AdminMsg:
		b.n.HandleAdmin(uint64(from), m.Req)
	default:
		panic(fmt.Sprintf("cluster: broker %d received a %T from %d", b.id, msg, from))
	}
	b.inputTaken()
	b.checkFailed()
}

// NowNs is the broker's own clock.
func (b *broker) NowNs() int64 { return b.env.NowNs() }

// SendPeer sends a raft batch to the broker with raft id to.
func (b *broker) SendPeer(to uint64, batch *node.PeerBatch) {
	b.env.Send(SimID(to), (*PeerMsg)(batch))
}

// SendAnswer sends an answer to the client endpoint (its sim node id).
func (b *broker) SendAnswer(to uint64, a *wire.Answer) {
	b.noteAnswer(to, a)
	b.env.Send(int(to), &AnswerMsg{Ans: a})
}
