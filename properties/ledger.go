package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/felix"
)

// Ledger is what the brokers' abstract trace (package modeltrace: its
// Request and Apply steps) shows of client writes: every client request a
// broker turned into a raft proposal, and every record a broker wrote by
// applying an entry, each named by the digest of the proposal's data
// (which names its proposer, that broker's incarnation and a sequence, so
// two proposals never share one). It is how the history checks attribute
// a landed record to the request that proposed it — by the request's id,
// not by its payload, which a retry shares with its original. A
// simulator builds it from the trace as the run goes (sim/runner's
// LedgerSink).
type Ledger struct {
	// Proposals are the proposals of client write requests, in the order
	// the trace showed them.
	Proposals []LedgerProposal
	// Landings are the records written, one per (digest, shard, offset)
	// however many brokers applied it, in the order first applied.
	Landings []LedgerLanding
	// Commands are the proposals of client requests that write no record
	// (group fetches and acks, the relay's outbox trims), in trace order:
	// what the honesty of their answers is judged by (CommandAnswersHonest).
	Commands []LedgerProposal
	// Overflowed marks a ledger that reached a cap and left steps out; the
	// checks that read it then judge nothing (see LedgerStepsMax).
	Overflowed bool
	// idx is the index the checks built, kept for the next one (a history
	// judged in parts asks once per part); it is rebuilt when proposals or
	// landings were appended since. Entries are not edited once judged.
	idx *ledgerIndex
}

// LedgerStepsMax caps a ledger's proposals and its landings, each.
// Overflow policy: further ones are left out and the ledger is marked
// Overflowed.
const LedgerStepsMax = 1 << 22

// LedgerRelayClient is the Client of the outbox relay's requests in a
// ledger: the relay is no history client, but its trims are judged.
const LedgerRelayClient = -2

// LedgerProposal is one client request a broker proposed.
type LedgerProposal struct {
	// Broker is the proposing broker as a client names it: its slot's
	// first raft id (a replacement identity is read as its slot's).
	Broker uint64
	// Client is the history's client that sent the request (HistoryOp.Client),
	// LedgerRelayClient for the outbox relay, -1 for a sender no history
	// records (the liveness probe).
	Client int
	// Request is the request's id, unique per client.
	Request uint64
	// Scope is the stream shard the proposing raft group serves, and the
	// request's tenant.
	Scope felix.Scope
	// Digest is the digest of the proposal's data; an entry applied under
	// it carries this proposal.
	Digest uint64
	// AppliedIndex is, for a command (Ledger.Commands), the raft index its
	// entry was first applied at (0: never applied), the command's place
	// in its shard's log; AppliedError says that apply refused it (a
	// command with no effect).
	AppliedIndex uint64
	AppliedError bool
	// Seq is the proposal's place among the trace's proposals of its
	// list (Proposals or Commands), which a ledger of one shard group's
	// steps keeps: the order key of the findings about it (MergeFindings).
	Seq uint64
}

// LedgerLanding is one record written by applying an entry.
type LedgerLanding struct {
	// Digest is the applied entry's data digest.
	Digest uint64
	// Shard is the stream shard whose raft group applied it (Tenant
	// empty: the entry's scope is its proposal's).
	Shard felix.Scope
	// Offset is where the record was written in its scope's log.
	Offset uint64
	// Brokers are the brokers (as clients name them) that applied it,
	// ascending.
	Brokers []uint64
	// Seq orders the landing among the trace's landings, as Seq does a
	// proposal: the place of its first apply among every written apply.
	Seq uint64
}

// ledgerIndex looks a ledger's proposals up by digest and by request.
type ledgerIndex struct {
	l         *Ledger
	byDigest  map[uint64][]int
	byRequest map[requestKey][]int
	landings  map[uint64][]int
	// proposals0 and landings0 are how many of each the ledger held when
	// it was indexed.
	proposals0, landings0 int
}

// requestKey names one request: the history's client and the request id.
type requestKey struct {
	client int
	id     uint64
}

// index is l's index, built on first use and again after an append (or
// when l is a copy of the ledger indexed).
func (l *Ledger) index() *ledgerIndex {
	if x := l.idx; x == nil || x.l != l || x.proposals0 != len(l.Proposals) || x.landings0 != len(l.Landings) {
		l.idx = indexLedger(l)
	}
	return l.idx
}

func indexLedger(l *Ledger) *ledgerIndex {
	x := &ledgerIndex{l: l, byDigest: map[uint64][]int{}, byRequest: map[requestKey][]int{}, landings: map[uint64][]int{},
		proposals0: len(l.Proposals), landings0: len(l.Landings)}
	for i := range l.Proposals {
		p := &l.Proposals[i]
		x.byDigest[p.Digest] = append(x.byDigest[p.Digest], i)
		if p.Client >= 0 {
			k := requestKey{p.Client, p.Request}
			x.byRequest[k] = append(x.byRequest[k], i)
		}
	}
	for i := range l.Landings {
		x.landings[l.Landings[i].Digest] = append(x.landings[l.Landings[i].Digest], i)
	}
	return x
}

// proposals are the proposals of client's request id, in trace order.
func (x *ledgerIndex) proposals(client int, id uint64) []*LedgerProposal {
	var out []*LedgerProposal
	for _, i := range x.byRequest[requestKey{client, id}] {
		out = append(out, &x.l.Proposals[i])
	}
	return out
}

// landed are the distinct landings of client's request id (of any of its
// proposals), in the order first applied.
func (x *ledgerIndex) landed(client int, id uint64) []*LedgerLanding {
	var idx []int
	for _, p := range x.byRequest[requestKey{client, id}] {
		idx = append(idx, x.landings[x.l.Proposals[p].Digest]...)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	out := make([]*LedgerLanding, len(idx))
	for i, j := range idx {
		out[i] = &x.l.Landings[j]
	}
	return out
}

// String renders a landing for messages: shard, offset and the brokers
// that applied it.
func (l *LedgerLanding) String() string {
	return fmt.Sprintf("%s/%s/%d offset %d (applied by %s)", l.Shard.Namespace, l.Shard.Stream, l.Shard.Shard, l.Offset, brokersText(l.Brokers))
}

func brokersText(bs []uint64) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprint(b)
	}
	return "broker " + strings.Join(parts, ",")
}

// landingsOf renders up to landingsListedMax landings.
func landingsOf(ls []*LedgerLanding) string {
	var parts []string
	for i, l := range ls {
		if i == landingsListedMax {
			parts = append(parts, fmt.Sprintf("and %d more", len(ls)-i))
			break
		}
		parts = append(parts, l.String())
	}
	return strings.Join(parts, ", ")
}

// sentRequests calls fn for every recorded request of every sent write
// of h: the op, the request's index among the op's requests.
func sentRequests(h *History, fn func(op *HistoryOp, q int)) {
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.NotSent {
			continue
		}
		for q := range op.Requests {
			fn(op, q)
		}
	}
}

// sameShard reports whether a and b name the same stream shard, tenants aside.
func sameShard(a, b felix.Scope) bool {
	return a.Namespace == b.Namespace && a.Stream == b.Stream && a.Shard == b.Shard
}
