package bareraft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// Config is the density a Harness drives etcd raft at; build it by field
// name. A felixsim run reports these as its "density" (run --json).
type Config struct {
	// Groups is the number of raft groups; Replicas the RawNodes in each
	// (a felixsim run's brokers: every broker replicates every group).
	Groups, Replicas int
	// TicksPerSecond is how often every RawNode ticks, per simulated second.
	TicksPerSecond float64
	// ProposalsPerSecond is the proposals per simulated second over all
	// groups, each ProposalBytes long (at least ProposalBytesMin: a
	// proposal carries its sequence number).
	ProposalsPerSecond float64
	ProposalBytes      int
	// ElectionTicks and HeartbeatTicks configure raft (0: felixsim's 10
	// and 2).
	ElectionTicks, HeartbeatTicks int
}

// Limits and defaults of a Config, and the harness's caps.
const (
	GroupsMax          = 4096
	ReplicasMax        = 7
	ProposalBytesMin   = 8
	ProposalBytesMax   = 1 << 20
	TicksPerSecondMax  = 100_000
	ProposalsPerSecMax = 10_000_000
	// ElectionTicksDefault and HeartbeatTicksDefault are felixsim's
	// (sim/cluster).
	ElectionTicksDefault  = 10
	HeartbeatTicksDefault = 2
	// ProposalsPerGroupMax caps the proposals one group makes over a
	// harness's life (each costs a byte per replica to verify); more
	// panics.
	ProposalsPerGroupMax = 1 << 26
	// PendingPerGroupMax caps the proposals a group holds while it has no
	// leader; more is a harness that cannot elect, and panics.
	PendingPerGroupMax = 1 << 16
	// MessagesInFlightMax caps the messages queued between two delivery
	// rounds; more is a runaway, and panics.
	MessagesInFlightMax = 1 << 20
	// SettleRoundsMax caps the delivery rounds after one event; raft with
	// no latency settles in a handful, more is a livelock, and panics.
	SettleRoundsMax = 1000
	// CompactEntriesMin and CompactKeepEntries are felixsim's raft log
	// compaction (node/snapshot.go): compact when the log holds this many
	// applied entries beyond the ones kept behind the applied index.
	CompactEntriesMin  = 1024
	CompactKeepEntries = 128
)

// Validate refuses a Config no harness can run, naming the field and why.
func (c Config) Validate() error {
	switch {
	case c.Groups < 1 || c.Groups > GroupsMax:
		return fmt.Errorf("bareraft: groups %d refused: need 1..%d", c.Groups, GroupsMax)
	case c.Replicas < 1 || c.Replicas > ReplicasMax:
		return fmt.Errorf("bareraft: replicas %d refused: need 1..%d", c.Replicas, ReplicasMax)
	case !(c.TicksPerSecond > 0 && c.TicksPerSecond <= TicksPerSecondMax):
		return fmt.Errorf("bareraft: ticks per second %v refused: need (0, %d]", c.TicksPerSecond, TicksPerSecondMax)
	case !(c.ProposalsPerSecond >= 0 && c.ProposalsPerSecond <= ProposalsPerSecMax):
		return fmt.Errorf("bareraft: proposals per second %v refused: need [0, %d]", c.ProposalsPerSecond, ProposalsPerSecMax)
	case c.ProposalBytes < ProposalBytesMin || c.ProposalBytes > ProposalBytesMax:
		return fmt.Errorf("bareraft: proposal bytes %d refused: need %d..%d (a proposal carries its sequence number)", c.ProposalBytes, ProposalBytesMin, ProposalBytesMax)
	case c.ElectionTicks < 0 || c.HeartbeatTicks < 0:
		return fmt.Errorf("bareraft: election ticks %d, heartbeat ticks %d refused: negative", c.ElectionTicks, c.HeartbeatTicks)
	}
	return nil
}

// withDefaults fills the zero raft tick counts.
func (c Config) withDefaults() Config {
	if c.ElectionTicks == 0 {
		c.ElectionTicks = ElectionTicksDefault
	}
	if c.HeartbeatTicks == 0 {
		c.HeartbeatTicks = HeartbeatTicksDefault
	}
	return c
}

// Stats counts what a Harness did.
type Stats struct {
	// SimNs is the simulated time run; Ticks the tick instants (each ticks
	// every RawNode).
	SimNs int64
	Ticks uint64
	// Proposed counts the proposals raft accepted; Retried the attempts it
	// dropped (no leader yet), which were proposed again later.
	Proposed, Retried uint64
	// Pending is the proposals due but not yet accepted (no leader).
	Pending int
	// Delivered counts messages stepped into a RawNode; Readies the Ready
	// structs handled.
	Delivered, Readies uint64
	// Committed counts the proposals applied on every replica of their
	// group (summed over groups: the fewest any replica applied).
	Committed uint64
	// Sent counts the messages replicas sent (Ready.Messages), Appends
	// the MsgApp among them and AppendedEntries their entries, Snapshots
	// the MsgSnap, Votes the vote and pre-vote requests, Heartbeats the
	// MsgHeartbeat; Elections the times a replica turned candidate. They
	// are counted as felixsim's node.RaftWork counts them, to compare.
	Sent, Appends, AppendedEntries, Snapshots, Votes, Heartbeats, Elections uint64
}

// noteReady counts one Ready's messages and, if it turned a replica
// candidate, an election.
func (s *Stats) noteReady(rd *raft.Ready) {
	for _, m := range rd.Messages {
		s.Sent++
		switch m.GetType() {
		case raftpb.MsgApp:
			s.Appends++
			s.AppendedEntries += uint64(len(m.GetEntries()))
		case raftpb.MsgSnap:
			s.Snapshots++
		case raftpb.MsgVote, raftpb.MsgPreVote:
			s.Votes++
		case raftpb.MsgHeartbeat:
			s.Heartbeats++
		}
	}
	if rd.SoftState != nil && rd.SoftState.RaftState == raft.StateCandidate {
		s.Elections++
	}
}

// Harness runs Groups raft groups in one goroutine on counted time.
type Harness struct {
	cfg    Config
	groups []*group
	// nowNs is the simulated time; ticks and due count the tick instants
	// and the proposals whose time has come.
	nowNs      int64
	ticks, due uint64
	// out holds the messages sent in this delivery round, in; the
	// round being delivered (two buffers swapped, reused).
	out, in []envelope
	stats   Stats
}

// envelope is a message in flight and the group it belongs to.
type envelope struct {
	group int
	m     *raftpb.Message
}

// group is one raft group: its replicas (raft id i+1 at index i), the
// proposals due while it had no leader, and its next sequence number.
type group struct {
	id       int
	replicas []*replica
	pending  []uint64
	// proposed[seq] is set once raft accepted proposal seq of this group.
	proposed []bool
	nextSeq  uint64
}

// New builds the groups, every replica a voter from a bootstrap snapshot
// at index 1, term 1.
func New(cfg Config) (*Harness, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	h := &Harness{cfg: cfg}
	voters := make([]uint64, cfg.Replicas)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	for gi := range cfg.Groups {
		g := &group{id: gi}
		for ri := range cfg.Replicas {
			r, err := newReplica(h, g, uint64(ri+1), voters)
			if err != nil {
				return nil, fmt.Errorf("bareraft: group %d replica %d: %w", gi, ri+1, err)
			}
			g.replicas = append(g.replicas, r)
		}
		h.groups = append(h.groups, g)
	}
	return h, nil
}

// Run advances simulated time by durNs: every tick instant ticks every
// RawNode, every proposal instant proposes the next group's payload at its
// leader, and each instant is followed by delivery until raft is quiet.
func (h *Harness) Run(durNs int64) {
	if durNs < 0 {
		panic(fmt.Sprintf("bareraft: Run(%d): negative duration", durNs))
	}
	end := h.nowNs + durNs
	for {
		tickNs := instantNs(h.ticks, h.cfg.TicksPerSecond)
		propNs := instantNs(h.due, h.cfg.ProposalsPerSecond)
		next := min(tickNs, propNs)
		if next > end {
			break
		}
		h.nowNs = next
		if tickNs == next {
			h.tick()
		} else {
			h.propose()
		}
		h.settle()
	}
	h.nowNs = end
	h.stats.SimNs = h.nowNs
}

// instantNs is the simulated time of event i at rate per second
// (never, for a zero rate).
func instantNs(i uint64, perSecond float64) int64 {
	if perSecond <= 0 {
		return math.MaxInt64
	}
	return int64(float64(i) * 1e9 / perSecond)
}

// tick ticks every RawNode once.
func (h *Harness) tick() {
	h.ticks++
	h.stats.Ticks++
	for _, g := range h.groups {
		for _, r := range g.replicas {
			r.rn.Tick()
		}
	}
}

// propose makes the next proposal due, round-robin over the groups, and
// proposes every pending one of its group at the group's leader.
func (h *Harness) propose() {
	g := h.groups[h.due%uint64(len(h.groups))]
	h.due++
	if len(g.pending) >= PendingPerGroupMax {
		panic(fmt.Sprintf("bareraft: group %d holds %d proposals without a leader at %d ns", g.id, len(g.pending), h.nowNs))
	}
	if g.nextSeq >= ProposalsPerGroupMax {
		panic(fmt.Sprintf("bareraft: group %d made %d proposals, the cap", g.id, g.nextSeq))
	}
	g.pending = append(g.pending, g.nextSeq)
	g.proposed = append(g.proposed, false)
	g.nextSeq++
	h.flushPending(g)
}

// flushPending proposes g's pending proposals at its leader, in order,
// until raft drops one (they wait for the next instant).
func (h *Harness) flushPending(g *group) {
	leader := g.leader()
	if leader == nil {
		return
	}
	done := 0
	for _, seq := range g.pending {
		data := make([]byte, h.cfg.ProposalBytes) // raft keeps it: a fresh slice each, as a broker's encoded command
		binary.LittleEndian.PutUint64(data, seq)
		err := leader.rn.Propose(data)
		if errors.Is(err, raft.ErrProposalDropped) {
			h.stats.Retried++
			break
		}
		if err != nil {
			panic(fmt.Sprintf("bareraft: group %d: propose %d: %v", g.id, seq, err))
		}
		g.proposed[seq] = true
		h.stats.Proposed++
		done++
	}
	g.pending = append(g.pending[:0], g.pending[done:]...)
}

// leader is the replica that last said it leads g, or nil.
func (g *group) leader() *replica {
	for _, r := range g.replicas {
		if r.leading {
			return r
		}
	}
	return nil
}

// settle handles every replica's Ready and delivers the messages they
// send, round after round, until no replica has a Ready and no message is
// in flight; groups that gained a leader get their pending proposals.
func (h *Harness) settle() {
	for round := 0; ; round++ {
		if round > SettleRoundsMax {
			panic(fmt.Sprintf("bareraft: raft did not settle in %d rounds at %d ns", SettleRoundsMax, h.nowNs))
		}
		for _, g := range h.groups {
			hadLeader := g.leader() != nil
			for _, r := range g.replicas {
				for r.rn.HasReady() {
					r.handleReady()
				}
			}
			if !hadLeader && len(g.pending) > 0 {
				h.flushPending(g)
			}
		}
		if len(h.out) == 0 {
			return
		}
		h.in, h.out = h.out, h.in[:0]
		for i, e := range h.in {
			h.deliver(e)
			h.in[i] = envelope{} // drop the pointer: the buffer is reused
		}
	}
}

// send queues m for the next delivery round.
func (h *Harness) send(g *group, m *raftpb.Message) {
	if len(h.out) >= MessagesInFlightMax {
		panic(fmt.Sprintf("bareraft: %d messages in flight at %d ns", len(h.out), h.nowNs))
	}
	h.out = append(h.out, envelope{group: g.id, m: m})
}

// deliver steps a message into its target replica.
func (h *Harness) deliver(e envelope) {
	to := e.m.GetTo()
	g := h.groups[e.group]
	if to < 1 || to > uint64(len(g.replicas)) {
		panic(fmt.Sprintf("bareraft: group %d: message %v to replica %d", g.id, e.m.GetType(), to))
	}
	if err := g.replicas[to-1].rn.Step(e.m); err != nil {
		panic(fmt.Sprintf("bareraft: group %d replica %d: step %v: %v", g.id, to, e.m.GetType(), err))
	}
	h.stats.Delivered++
}

// Stats returns what the harness did so far.
func (h *Harness) Stats() Stats {
	st := h.stats
	for _, g := range h.groups {
		st.Pending += len(g.pending)
		least := uint64(math.MaxUint64)
		for _, r := range g.replicas {
			least = min(least, r.appliedCount)
		}
		st.Committed += least
	}
	return st
}
