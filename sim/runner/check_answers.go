package runner

import (
	"cmp"
	"slices"
	"strings"

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
// outcome written: digest, group, offset), and the proposals of group
// fetches, acks and outbox trims apart (commands) with where each was
// first applied, for the honesty of their answers. It only reads the
// steps, so a run is the same with it; a run always has one (see
// traceSink).
//
// The steps wait on disk (ledgerSpill), each tagged with its raft group:
// the end checks read the ledger one shard group at a time
// (GroupLedger), the whole of it only when a run is judged whole. In
// memory it keeps the counts and the commands not yet applied.
//
// Invariant: pending holds exactly the commands proposed and not yet
// applied (the last proposal of each digest), each with its place and
// group.
type LedgerSink struct {
	spill ledgerSpill
	// proposals, commands and applies count the steps kept of each kind
	// (written applies: landings, each broker's apply apart).
	proposals, commands, applies uint64
	// pending finds a command not yet applied by its digest (digests are
	// unique per proposal); only looked up and deleted, never ranged over.
	pending map[uint64]pendingCommand
	// crossGroup is set when a command's digest was applied in a group
	// other than the one it was proposed in.
	crossGroup bool
	// scopes are the (group, tenant) pairs of the proposals kept, ascending.
	scopes []groupTenant
}

// pendingCommand is a command not yet applied: its place and group.
type pendingCommand struct{ seq, group uint64 }

// groupTenant is a raft group and a tenant whose requests it proposed.
type groupTenant struct {
	group  uint64
	tenant string
}

// NewLedgerSink returns an empty sink; Close releases its file.
func NewLedgerSink() *LedgerSink {
	return &LedgerSink{pending: map[uint64]pendingCommand{}, spill: ledgerSpill{heldMax: ledgerHeldMax}}
}

// Step keeps a client write's Request step and a written record's Apply
// step, and a client command's Request step and its first Apply step.
func (s *LedgerSink) Step(st *modeltrace.Step) {
	switch {
	case st.Kind == modeltrace.Request && st.Client != 0 && st.Asked != nil && st.Asked.Kind.Writes():
		s.spill.proposal('P', st, s.proposals)
		s.proposals++
		s.noteScope(st.Group, st.Asked.Tenant)
	case st.Kind == modeltrace.Request && st.Client != 0 && st.Asked != nil && isCommand(st.Asked.Kind):
		s.pending[st.Digest] = pendingCommand{seq: s.commands, group: st.Group}
		s.spill.proposal('C', st, s.commands)
		s.commands++
		s.noteScope(st.Group, st.Asked.Tenant)
	case st.Kind == modeltrace.Apply && st.Outcome != modeltrace.OutcomeWritten:
		if pc, ok := s.pending[st.Digest]; ok {
			delete(s.pending, st.Digest)
			s.crossGroup = s.crossGroup || pc.group != st.Group
			s.spill.applied(pc.group, pc.seq, st.Index, st.Outcome == modeltrace.OutcomeError)
		}
	case st.Kind == modeltrace.Apply:
		s.spill.landing(st, s.applies)
		s.applies++
	}
}

// noteScope adds (group, tenant) to the scopes kept.
func (s *LedgerSink) noteScope(group uint64, tenant string) {
	k := groupTenant{group, tenant}
	i, found := slices.BinarySearchFunc(s.scopes, k, func(a, b groupTenant) int {
		if a.group != b.group {
			return cmp.Compare(a.group, b.group)
		}
		return strings.Compare(a.tenant, b.tenant)
	})
	if !found {
		s.scopes = slices.Insert(s.scopes, i, k)
	}
}

// Scopes are the scopes of the requests proposed (streams give each raft
// group its stream shard), ascending.
func (s *LedgerSink) Scopes(streams []node.StreamSpec) []felix.Scope {
	shards := shardsOf(streams)
	var out []felix.Scope
	for _, gt := range s.scopes {
		sc := shards[gt.group]
		sc.Tenant = gt.tenant
		out = append(out, sc)
	}
	slices.SortFunc(out, felix.Scope.Compare)
	return slices.Compact(out)
}

// Close releases the file the sink's steps wait in.
func (s *LedgerSink) Close() error { return s.spill.close() }

// isCommand reports whether a request of kind k is a client command that
// writes no record: a group fetch or ack, or an outbox trim.
func isCommand(k modeltrace.CommitKind) bool {
	return k == modeltrace.KindFetch || k == modeltrace.KindAck || k == modeltrace.KindOutboxTrim
}

// Ledger is what the sink kept, in properties' terms: brokers named as
// clients name them (a slot's first raft id), raft groups as the stream
// shards of streams (the cluster's topology), and senders as the
// history's clients by clientOf (a sim id to a history client, false for
// a sender no history records). It fails only when the sink's file could
// not be written or read back.
func (s *LedgerSink) Ledger(streams []node.StreamSpec, clientOf func(simID uint64) (int, bool)) (*properties.Ledger, error) {
	k, err := s.spill.read(func(uint64) bool { return true }, nil)
	if err != nil {
		return nil, err
	}
	l := k.ledger(shardsOf(streams), clientOf)
	if l.Overflowed = s.overflowed() || len(l.Landings) > properties.LedgerStepsMax; l.Overflowed {
		// What a capped ledger would have kept: the first of each (the
		// checks judge nothing of an overflowed ledger; coverage counts it).
		l.Proposals, l.Commands = l.Proposals[:min(len(l.Proposals), properties.LedgerStepsMax)], l.Commands[:min(len(l.Commands), properties.LedgerStepsMax)]
		l.Landings = l.Landings[:min(len(l.Landings), properties.LedgerStepsMax)]
	}
	return l, nil
}

// overflowed reports whether more proposals or commands were kept than
// properties.LedgerStepsMax (landings are counted once deduplicated).
func (s *LedgerSink) overflowed() bool {
	return s.proposals > properties.LedgerStepsMax || s.commands > properties.LedgerStepsMax
}

// GroupLedger is the part of Ledger whose steps raft groups groups took,
// with every command of the outbox relay (whose request ids name no
// scope, so a trim's may stand for a proposal of any group), for the end
// checks judging those shard groups' scopes. ok is false when the
// part may differ from what the whole ledger says of the group's requests
// (its landings or first proposals: a record landed in the group under a
// digest no proposal of the group carries, a command applied in another
// group than its proposal's), or when the whole ledger overflowed or so
// many records landed that whether it did needs it whole: the caller then
// judges whole.
func (s *LedgerSink) GroupLedger(groups []uint64, streams []node.StreamSpec, clientOf func(simID uint64) (int, bool)) (l *properties.Ledger, ok bool, err error) {
	if s.crossGroup || s.applies > properties.LedgerStepsMax || s.overflowed() {
		return nil, false, nil
	}
	relay := func(simID uint64) bool { c, ok := clientOf(simID); return ok && c == properties.LedgerRelayClient }
	k, err := s.spill.read(func(g uint64) bool { return slices.Contains(groups, g) }, relay)
	if err != nil {
		return nil, false, err
	}
	proposed := map[uint64]bool{} // the digests the group proposed; looked up only
	for _, p := range k.proposals {
		proposed[p.digest] = true
	}
	for _, ld := range k.landings {
		if !proposed[ld.key.digest] {
			return nil, false, nil
		}
	}
	return k.ledger(shardsOf(streams), clientOf), true, nil
}

// ledger converts what was read back to properties' terms.
func (k *sunkLedger) ledger(shards map[uint64]felix.Scope, clientOf func(simID uint64) (int, bool)) *properties.Ledger {
	l := &properties.Ledger{Proposals: ledgerProposals(k.proposals, shards, clientOf), Commands: ledgerProposals(k.commands, shards, clientOf)}
	for _, ld := range k.landings {
		bs := make([]uint64, len(ld.brokers))
		for i, b := range ld.brokers {
			bs[i] = slotOf(b)
		}
		slices.Sort(bs)
		l.Landings = append(l.Landings, properties.LedgerLanding{Digest: ld.key.digest, Shard: shards[ld.key.group], Offset: ld.key.offset,
			Brokers: slices.Compact(bs), Seq: ld.seq})
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
			AppliedIndex: p.applied, AppliedError: p.applyErr, Seq: p.seq})
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
func (r *run) ledger() (*properties.Ledger, error) {
	return r.trace.ledger.Ledger(r.c.Config().Streams, r.ledgerClient)
}

// groupLedger is the part of the run's ledger of raft groups groups (see
// LedgerSink.GroupLedger).
func (r *run) groupLedger(groups []uint64) (*properties.Ledger, bool, error) {
	return r.trace.ledger.GroupLedger(groups, r.c.Config().Streams, r.ledgerClient)
}

// ledgerClient reads a sender's sim id as a history client or the relay.
func (r *run) ledgerClient(simID uint64) (int, bool) {
	if simID == r.relaySimID {
		return properties.LedgerRelayClient, true
	}
	wc := r.wl.Config()
	i := int(simID) - wc.FirstSimID
	return i, simID >= uint64(wc.FirstSimID) && i < wc.Clients
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
