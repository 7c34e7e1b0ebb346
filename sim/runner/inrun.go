package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// inRun checks the cheap invariants while the run goes, as every broker's
// node.Observer, so that a replica that breaks one for a moment and
// recovers before the end is still seen: each applied record
// (AppliedWhole), each durable round (the stored log's seam, the hard
// state raft was promised; a sample of them, the store read back from
// its durable bytes against memory: inrun_store.go), each boot (every
// stored log, the hard state read back against what the last incarnation
// was promised, the stored logs against the running brokers', every
// rebuilt scope's state against its log, the whole store against memory).
type inRun struct {
	c *cluster.Cluster
	// promised is, per broker and group, the hard state raft was last
	// told is durable.
	promised map[brokerGroup]properties.RaftHardState
	// found are the violations, the first of each invariant (later ones
	// are counted in more); at most one per registered invariant.
	found []Violation
	more  map[properties.InvariantName]int
	taken bool
	// seamBuf is Persisted's reusable scratch.
	seamBuf []properties.RaftEntry
	// names[id] is brokerName(id), made once; shard is the shard Applied
	// reads, through lookupFn (made once, so a check allocates no closure).
	names    []string
	shard    stateGetter
	lookupFn properties.StateLookup
	// groups are the consumer-group positions each broker made durable.
	groups groupPositions
	// drops are the retention steps the brokers applied.
	drops *retentionDrops
	// store compares each broker's durable store with its memory.
	store storeCheck
	// windowBuf and windowViews are groupsDropped's reusable scratch.
	windowBuf   []node.GroupPosition
	windowViews []properties.GroupPositionView
	// counts is the run's coverage (countNearGroup's).
	counts *coverage.Counts
	// gens gathers the administered stream's landings (nil: none).
	gens *generationWatch
	// acks are what each broker acknowledged (inrun_acked.go).
	acks acknowledged
}

// stateGetter is the part of a shard Applied reads (the runner does not
// import statemachine).
type stateGetter interface {
	StateGet(key string) (value []byte, version uint64, found bool)
}

// brokerGroup names one group on one broker.
type brokerGroup struct{ node, group uint64 }

var _ node.Observer = (*inRun)(nil)

func newInRun(brokers int) *inRun {
	ir := &inRun{promised: map[brokerGroup]properties.RaftHardState{}, more: map[properties.InvariantName]int{}, drops: newRetentionDrops(),
		store: newStoreCheck(), acks: newAcknowledged()}
	for id := 0; id <= brokers; id++ {
		ir.names = append(ir.names, brokerName(uint64(id)))
	}
	ir.lookupFn = ir.lookup
	return ir
}

// name is how checks name broker raftID.
func (ir *inRun) name(raftID uint64) string {
	if raftID < uint64(len(ir.names)) {
		return ir.names[raftID]
	}
	return brokerName(raftID)
}

// lookup reads ir.shard's state for AppliedWhole.
func (ir *inRun) lookup(key string) (string, uint64, bool) {
	v, ver, ok := ir.shard.StateGet(key)
	return string(v), ver, ok
}

// note records a violation found during the run, with the time it was seen.
func (ir *inRun) note(inv properties.InvariantName, err error) {
	if err == nil {
		return
	}
	if _, seen := ir.more[inv]; !seen {
		v := newViolation(inv, fmt.Sprintf("during the run at %d ns: %v", ir.c.World.NowNs(), err))
		v.AtNs, v.When, v.texts = ir.c.World.NowNs(), WhenDuring, []string{err.Error()}
		ir.found = append(ir.found, v)
	}
	ir.more[inv]++
}

// take returns what the run saw so far, each with how often it recurred,
// once: a second call returns nothing (a crash during the final checks
// must not report them twice).
func (ir *inRun) take() []Violation {
	if ir == nil || ir.taken {
		return nil
	}
	ir.taken = true
	return ir.counted()
}

// counted copies what the run saw so far, each with how often it recurred.
func (ir *inRun) counted() []Violation {
	out := append([]Violation(nil), ir.found...)
	for i := range out {
		out[i].count = ir.more[out[i].Invariant]
		if n := out[i].count - 1; n > 0 {
			out[i].Message += fmt.Sprintf("; and %d more time(s) during the run", n)
		}
	}
	return out
}

// Applied checks the record against the shard it was just applied to.
func (ir *inRun) Applied(a *node.AppliedRecord) {
	var logged *properties.ViewEntry
	if got, err := a.Shard.ReadFrom(a.Offset, 1); err == nil && len(got) == 1 && got[0].Offset == a.Offset {
		v := properties.ViewEntryOf(got[0].Offset, &got[0].Record)
		logged = &v
	}
	ir.shard = a.Shard
	ir.note(properties.InvariantNoPartialCommit, properties.AppliedWhole(ir.name(a.Node), a.Offset, logged, ir.lookupFn))
	ir.shard = nil
	ir.gens.applied(a)
}

// Dropped records a retention step for the linearizability check,
// checks the scope's consumer groups against the new window and, at the
// step's first replica, counts it when it came near a consumer group.
func (ir *inRun) Dropped(d *node.DroppedPrefix) {
	_, seen := ir.drops.at[dropKey{scope: d.Scope, atNext: d.AtNext, below: d.Below, withWrite: d.WithWrite}]
	ir.drops.note(d, ir.c.World.NowNs())
	ir.groupsDropped(d, !seen)
}

// Persisted checks the durable round's hard state against the last one
// promised, and the stored log around what the round wrote.
func (ir *inRun) Persisted(p *node.PersistedGroup) {
	k := brokerGroup{p.Node, p.Group}
	if p.HasHardState {
		hs := hardStateOf(p.HardState)
		ir.note(properties.InvariantHardStateMonotonic, properties.HardStateNeverBackwards(ir.name(p.Node), p.Group, ir.promised[k], hs))
		ir.promised[k] = hs
	}
	if len(p.StoredTerms) > 0 {
		l := properties.StoredRaftLog{Broker: ir.name(p.Node), Group: p.Group, HardState: ir.promised[k], FirstIndex: p.FirstIndex, Entries: ir.seamBuf[:0]}
		for _, t := range p.StoredTerms {
			l.Entries = append(l.Entries, properties.RaftEntry{Term: t})
		}
		ir.seamBuf = l.Entries[:0]
		ir.note(properties.InvariantRaftLogTermsMonotonic, properties.StoredLogTermsMonotonic(&l))
	}
	ir.groupsPersisted(p)
}

// Opened checks a broker just rebuilt from its store.
func (ir *inRun) Opened(n *node.Node) {
	logs, err := storedLogsOf(n)
	if err != nil {
		panic(err) // the store just opened cannot read itself back: a bug
	}
	for i := range logs {
		l := &logs[i]
		k := brokerGroup{n.ID(), l.Group}
		ir.note(properties.InvariantHardStateMonotonic, properties.HardStateNeverBackwards(l.Broker, l.Group, ir.promised[k], l.HardState))
		ir.promised[k] = l.HardState
		ir.note(properties.InvariantRaftLogTermsMonotonic, properties.StoredLogTermsMonotonic(l))
	}
	for id := uint64(1); id <= uint64(ir.c.Brokers()); id++ {
		other := ir.c.Node(id)
		if id == n.ID() || other == nil {
			continue
		}
		theirs, err := storedLogsOf(other)
		if err != nil {
			panic(err)
		}
		ir.note(properties.InvariantRaftLogsAgree, properties.StoredLogsAgree(append(theirs, logs...)))
	}
	ir.groupsOpened(n)
	rl := replicaLogOf(ptr(n.ReplicaState()))
	for i := range rl.Scopes {
		ir.note(properties.InvariantStateMatchesLog, properties.StateMatchesLog(&rl.Scopes[i]))
	}
	ir.storeOpened(n)
}

func ptr[T any](v T) *T { return &v }

// brokerName is how checks name broker raftID.
func brokerName(raftID uint64) string { return fmt.Sprintf("broker-%d", raftID) }

// hardStateOf converts a node's hard state.
func hardStateOf(hs node.HardState) properties.RaftHardState {
	return properties.RaftHardState{Term: hs.Term, Vote: hs.Vote, Commit: hs.Commit}
}

// storedLogOf converts one group's stored entries.
func storedLogOf(broker string, group uint64, hs node.HardState, ents []node.StoredEntry) properties.StoredRaftLog {
	l := properties.StoredRaftLog{Broker: broker, Group: group, HardState: hardStateOf(hs), Entries: make([]properties.RaftEntry, len(ents))}
	if len(ents) > 0 {
		l.FirstIndex = ents[0].Index
	}
	for i, e := range ents {
		l.Entries[i] = properties.RaftEntry{Term: e.Term, Data: e.Data}
	}
	return l
}

// storedLogsOf converts every group's stored log of a running node.
func storedLogsOf(n *node.Node) ([]properties.StoredRaftLog, error) {
	gs, err := n.StoredRaftLogs()
	if err != nil {
		return nil, err
	}
	out := make([]properties.StoredRaftLog, len(gs))
	for i := range gs {
		out[i] = storedLogOf(brokerName(n.ID()), gs[i].Group, gs[i].HardState, gs[i].Entries)
	}
	return out, nil
}

// storedLogViolations checks every running broker's stored raft logs at
// the end of the run: each log's terms, and every pair's committed
// entries.
func storedLogViolations(c *cluster.Cluster) []Violation {
	var all []properties.StoredRaftLog
	for id := uint64(1); id <= uint64(c.Brokers()); id++ {
		if n := c.Node(id); n != nil {
			logs, err := storedLogsOf(n)
			if err != nil {
				panic(err)
			}
			all = append(all, logs...)
		}
	}
	var out []Violation
	for i := range all {
		if err := properties.StoredLogTermsMonotonic(&all[i]); err != nil {
			out = append(out, violationOf(properties.InvariantRaftLogTermsMonotonic, err))
			break
		}
	}
	if err := properties.StoredLogsAgree(all); err != nil {
		out = append(out, violationOf(properties.InvariantRaftLogsAgree, err))
	}
	return out
}
