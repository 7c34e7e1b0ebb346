package runner

import (
	"slices"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// LedgerSink keeps, from the brokers' abstract trace, what the history
// checks attribute landings by (properties.Ledger): every client write
// request a broker proposed (a Request step: client, request id, the
// proposal's digest) and every record a broker wrote (an Apply step of
// outcome written: digest, group, offset). It only reads the steps, so
// a run is the same with it; a run always has one (see traceSink).
//
// It keeps the proposals of group fetches, acks and outbox trims apart
// (commands), for the honesty of their answers.
//
// Invariant: len(proposals), len(commands) and len(landings) stay within
// properties.LedgerStepsMax; past it steps are dropped and overflowed set.
type LedgerSink struct {
	proposals []sunkProposal
	commands  []sunkProposal
	// commandAt finds a command kept by its proposal's digest (digests
	// are unique per proposal); it is only looked up, never iterated.
	commandAt map[uint64]int
	landings  []sunkLanding
	// landingAt finds a landing already kept by (digest, group, offset);
	// it is only looked up, never iterated.
	landingAt  map[landingKey]int
	overflowed bool
}

// sunkProposal is a Request step as kept: raft ids and sim ids as the trace has them.
// A command's applied is the index its entry was first applied at (0: not
// applied), applyErr whether that apply refused it.
type sunkProposal struct {
	broker, client, request, group, digest uint64
	tenant                                 string
	applied                                uint64
	applyErr                               bool
}

// sunkLanding is one record written, with every broker that applied it.
type sunkLanding struct {
	key     landingKey
	brokers []uint64
}

type landingKey struct{ digest, group, offset uint64 }

// NewLedgerSink returns an empty sink.
func NewLedgerSink() *LedgerSink {
	return &LedgerSink{landingAt: map[landingKey]int{}, commandAt: map[uint64]int{}}
}

// Step keeps a client write's Request step and a written record's Apply
// step, and a client command's Request step and its first Apply step.
func (s *LedgerSink) Step(st *modeltrace.Step) {
	switch {
	case st.Kind == modeltrace.Request && st.Client != 0 && st.Asked != nil && st.Asked.Kind.Writes():
		if len(s.proposals) >= properties.LedgerStepsMax {
			s.overflowed = true
			return
		}
		s.proposals = append(s.proposals, sunkProposal{broker: st.Broker, client: st.Client, request: st.ReqID,
			group: st.Group, digest: st.Digest, tenant: st.Asked.Tenant})
	case st.Kind == modeltrace.Request && st.Client != 0 && st.Asked != nil && isCommand(st.Asked.Kind):
		if len(s.commands) >= properties.LedgerStepsMax {
			s.overflowed = true
			return
		}
		s.commandAt[st.Digest] = len(s.commands)
		s.commands = append(s.commands, sunkProposal{broker: st.Broker, client: st.Client, request: st.ReqID,
			group: st.Group, digest: st.Digest, tenant: st.Asked.Tenant})
	case st.Kind == modeltrace.Apply && st.Outcome != modeltrace.OutcomeWritten:
		if i, ok := s.commandAt[st.Digest]; ok && s.commands[i].applied == 0 {
			s.commands[i].applied, s.commands[i].applyErr = st.Index, st.Outcome == modeltrace.OutcomeError
		}
	case st.Kind == modeltrace.Apply:
		k := landingKey{digest: st.Digest, group: st.Group, offset: st.Offset}
		if i, ok := s.landingAt[k]; ok {
			if !slices.Contains(s.landings[i].brokers, st.Broker) {
				s.landings[i].brokers = append(s.landings[i].brokers, st.Broker)
			}
			return
		}
		if len(s.landings) >= properties.LedgerStepsMax {
			s.overflowed = true
			return
		}
		s.landingAt[k] = len(s.landings)
		s.landings = append(s.landings, sunkLanding{key: k, brokers: []uint64{st.Broker}})
	}
}

// isCommand reports whether a request of kind k is a client command that
// writes no record: a group fetch or ack, or an outbox trim.
func isCommand(k modeltrace.CommitKind) bool {
	return k == modeltrace.KindFetch || k == modeltrace.KindAck || k == modeltrace.KindOutboxTrim
}

// Ledger is what the sink kept, in properties' terms: brokers named as
// clients name them (a slot's first raft id), raft groups as the stream
// shards of streams (the cluster's topology), and senders as the
// history's clients by clientOf (a sim id to a history client, false for
// a sender no history records).
func (s *LedgerSink) Ledger(streams []node.StreamSpec, clientOf func(simID uint64) (int, bool)) *properties.Ledger {
	shards := shardsOf(streams)
	l := &properties.Ledger{Overflowed: s.overflowed}
	l.Proposals = ledgerProposals(s.proposals, shards, clientOf)
	l.Commands = ledgerProposals(s.commands, shards, clientOf)
	for _, ld := range s.landings {
		bs := make([]uint64, len(ld.brokers))
		for i, b := range ld.brokers {
			bs[i] = slotOf(b)
		}
		slices.Sort(bs)
		l.Landings = append(l.Landings, properties.LedgerLanding{Digest: ld.key.digest, Shard: shards[ld.key.group], Offset: ld.key.offset, Brokers: slices.Compact(bs)})
	}
	return l
}

// ledgerProposals converts kept proposals to properties' terms.
func ledgerProposals(ps []sunkProposal, shards map[uint64]felix.Scope, clientOf func(simID uint64) (int, bool)) []properties.LedgerProposal {
	out := make([]properties.LedgerProposal, 0, len(ps))
	for _, p := range ps {
		c, ok := clientOf(p.client)
		if !ok {
			c = -1
		}
		sc := shards[p.group]
		sc.Tenant = p.tenant
		out = append(out, properties.LedgerProposal{Broker: slotOf(p.broker), Client: c, Request: p.request, Scope: sc, Digest: p.digest,
			AppliedIndex: p.applied, AppliedError: p.applyErr})
	}
	return out
}

// slotOf names a broker identity as clients do: its slot's first raft id.
func slotOf(raftID uint64) uint64 { return cluster.RaftID(cluster.SimID(raftID)) }

// shardsOf maps each stream shard's raft group id to its scope (no tenant).
func shardsOf(streams []node.StreamSpec) map[uint64]felix.Scope {
	out := map[uint64]felix.Scope{}
	for _, st := range streams {
		for sh := uint32(0); sh < st.Shards; sh++ {
			out[node.RaftGroupOf(streams, st.Namespace, st.Stream, sh)] = felix.Scope{Namespace: st.Namespace, Stream: st.Stream, Shard: sh}
		}
	}
	return out
}

// ledger is the run's ledger, its senders read as the workload's clients
// and the outbox relay.
func (r *run) ledger() *properties.Ledger {
	wc := r.wl.Config()
	return r.trace.ledger.Ledger(r.c.Config().Streams, func(simID uint64) (int, bool) {
		if simID == r.relaySimID {
			return properties.LedgerRelayClient, true
		}
		i := int(simID) - wc.FirstSimID
		return i, simID >= uint64(wc.FirstSimID) && i < wc.Clients
	})
}

// countAnswers counts what the id-matching checks judged: write requests
// answered NotLeader or Unavailable, and retries whose own request
// landed (by the ledger's landings of their requests' proposals).
func countAnswers(c *coverage.Counts, h *properties.History, l *properties.Ledger) {
	landed := map[[2]uint64]bool{} // (client, request id) of a request that landed; looked up only
	digests := map[uint64]bool{}
	for i := range l.Landings {
		digests[l.Landings[i].Digest] = true
	}
	for i := range l.Proposals {
		if p := &l.Proposals[i]; p.Client >= 0 && digests[p.Digest] {
			landed[[2]uint64{uint64(p.Client), p.Request}] = true
		}
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.CarriesRecord() {
			continue // a group command's or read's requests: counted apart (contract checks)
		}
		for _, q := range op.Requests {
			if q.Answer.NotProposed() {
				c.Add(coverage.AnswerCopyRefusedJudged)
			}
			if op.RetryOf != 0 && landed[[2]uint64{uint64(op.Client), q.ID}] {
				c.Add(coverage.RetryOwnLanding)
			}
		}
	}
}
