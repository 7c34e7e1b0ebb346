package properties

import (
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// HistoryLandingsMatchRequests checks the attribution the other history
// checks rely on, from the brokers' abstract trace (l):
//   - every record a broker wrote is the landing of a client request some
//     broker proposed (a record nobody asked for is a broker writing on its
//     own: a proposal it kept out of the trace, a split record);
//   - it landed on the stream shard its request was proposed for;
//   - every request a broker proposed for a client of the history is one
//     of the requests the history records for that client's writes (a
//     client whose sent writes are not all recorded with their requests
//     is not judged here);
//   - where the reference log (ref) still holds a landing's offset in the
//     request's scope, the record there is the one the request's write
//     carried: its event kind, its payload and its state operations. The
//     payload is no longer what matches a landing to its write, but it is
//     still what proves the landed record is the write's.
//
// A ledger that overflowed is not judged.
func HistoryLandingsMatchRequests(h *History, l *Ledger, ref *ReplicaLog) error {
	err, _ := HistoryLandingsMatchRequestsIn(h, l, ref, HistoryPart{})
	return err
}

// HistoryPart is the part of a history one call of a check judges when
// the history is judged a few scopes at a time (MergeFindings merges the
// parts' errors); the zero value is the whole history.
type HistoryPart struct {
	// Scopes are the scopes whose operations the part holds, ascending
	// (nil: every scope).
	Scopes []felix.Scope
	// Ledger marks the one part that also judges what the ledger shows
	// without a history: records nobody proposed or that landed on
	// another shard.
	Ledger bool
}

// holds reports whether the part holds scope s's operations.
func (p *HistoryPart) holds(s felix.Scope) bool {
	return p.Scopes == nil || slices.Contains(p.Scopes, s)
}

// judgesLedger reports whether the part judges the ledger's own findings.
func (p *HistoryPart) judgesLedger() bool { return p.Scopes == nil || p.Ledger }

// HistoryLandingsMatchRequestsIn is HistoryLandingsMatchRequests over
// part of a history (h holds the part's operations): the proposals in
// the part's scopes, and the landings whose first proposal is in them.
// foreign reports a proposal there of a history client's request that no
// write of h sent: whether another part's did decides the finding, so
// the caller must judge the history whole (it never happens in a part
// that is the whole).
func HistoryLandingsMatchRequestsIn(h *History, l *Ledger, ref *ReplicaLog, part HistoryPart) (err error, foreign bool) {
	if l == nil || l.Overflowed {
		return nil, false
	}
	x := l.index()
	v := violations{what: InvariantLandingMatchesRequest}
	sent, judged := recordedRequests(h)
	whole := part.Scopes == nil
	for i := range l.Proposals {
		p := &l.Proposals[i]
		if p.Client < 0 || !part.holds(p.Scope) || sent[requestKey{p.Client, p.Request}] != nil {
			continue
		}
		foreign = foreign || !whole
		if judged[p.Client] {
			v.at = p.Seq
			v.add("broker %d proposed request %d of client %d on %s, which no write of that client's history sent", p.Broker, p.Request, p.Client, p.Scope)
		}
	}
	for i := range l.Landings {
		ld := &l.Landings[i]
		v.at = 1<<62 + ld.Seq // after every proposal's
		ps := x.byDigest[ld.Digest]
		if len(ps) == 0 {
			if part.judgesLedger() {
				v.add("a record landed at %s that no client request proposed (entry digest %016x)", ld, ld.Digest)
			}
			continue
		}
		p := &l.Proposals[ps[0]]
		if !sameShard(ld.Shard, p.Scope) {
			if part.judgesLedger() {
				v.add("request %d of client %d, proposed by broker %d for %s, landed on another shard: %s", p.Request, p.Client, p.Broker, p.Scope, ld)
			}
			continue
		}
		if op := sent[requestKey{p.Client, p.Request}]; op != nil && p.Client >= 0 && part.holds(p.Scope) {
			checkLandedRecord(&v, op, p, ld, ref)
		}
	}
	return v.err(), foreign
}

// recordedRequests maps each recorded request of h's sent writes to its
// op, and says which clients have every sent write's requests recorded.
func recordedRequests(h *History) (map[requestKey]*HistoryOp, map[int]bool) {
	sent := map[requestKey]*HistoryOp{}
	judged := map[int]bool{}
	unrecorded := map[int]bool{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.NotSent {
			continue
		}
		judged[op.Client] = true
		if op.Requests == nil {
			unrecorded[op.Client] = true
		}
		for _, q := range op.Requests {
			sent[requestKey{op.Client, q.ID}] = op
		}
	}
	for c := range unrecorded { //det:ok deletes only
		delete(judged, c)
	}
	return sent, judged
}

// checkLandedRecord compares the record ref holds at a landing of op's
// request p with op's record, when ref still holds that offset.
func checkLandedRecord(v *violations, op *HistoryOp, p *LedgerProposal, ld *LedgerLanding, ref *ReplicaLog) {
	if ref == nil {
		return
	}
	view := ref.Scope(p.Scope)
	if view == nil {
		return
	}
	got, ok := view.At(ld.Offset)
	if !ok {
		return // retention dropped it
	}
	want := ViewEntryOf(ld.Offset, op.Record)
	if same, diff := SameRecord(got, &want); !same {
		v.add("op %d (%s by client %d on %s): its request %d landed at offset %d, where the log holds another record (%s)",
			op.ID, op.Kind, op.Client, op.Scope, p.Request, ld.Offset, diff)
	}
}
