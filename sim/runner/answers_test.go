package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// TestLedgerAttributesEveryAnswer: a run's history names, for every sent
// write, each request its call made with the broker it went to and what
// that broker answered, and the ledger built from the brokers' trace
// holds what the id-matching checks need: every write answered written
// has a proposal of its request by the answering broker and a landing at
// the answered offset, and the NotLeader and Unavailable answers the
// checks judge do occur. So AnswersHonest, FailedWriteLeftNoTrace,
// LandsAtMostOncePerDelivery and LandingMatchesRequest passing this run
// is a verdict, not a vacuous pass.
func TestLedgerAttributesEveryAnswer(t *testing.T) {
	f, err := ParseFaults("all")
	if err != nil {
		t.Fatal(err)
	}
	var l *properties.Ledger
	var lerr error
	res, err := Run(Options{Seed: 2, DurationNs: 10e9, FaultGapMeanNs: 6e8, Faults: f, KeepHistory: true, judged: func(r *run) { l, lerr = r.ledger() }})
	if err != nil || lerr != nil {
		t.Fatal(err, lerr)
	}
	if !res.OK() {
		t.Fatalf("seed 2: %s", res.Summary())
	}
	if l.Overflowed || len(l.Proposals) == 0 || len(l.Landings) == 0 {
		t.Fatalf("ledger overflowed %t with %d proposals and %d landings", l.Overflowed, len(l.Proposals), len(l.Landings))
	}
	type req struct {
		client int
		id     uint64
	}
	proposedBy := map[req][]uint64{}
	digests := map[req][]uint64{}
	for _, p := range l.Proposals {
		k := req{p.Client, p.Request}
		proposedBy[k] = append(proposedBy[k], p.Broker)
		digests[k] = append(digests[k], p.Digest)
	}
	landedAt := map[uint64][]uint64{}
	for _, ld := range l.Landings {
		landedAt[ld.Digest] = append(landedAt[ld.Digest], ld.Offset)
	}
	written, refusedCopies := 0, 0
	for i := range res.History.Ops {
		op := &res.History.Ops[i]
		if !op.Kind.IsWrite() || op.NotSent {
			continue
		}
		for j, q := range op.Requests {
			if q.Broker == 0 || q.Answer == properties.AnswerUnrecorded {
				t.Fatalf("op %d request %d: broker %d, answer %s: not recorded", op.ID, q.ID, q.Broker, q.Answer)
			}
			if q.Answer.NotProposed() {
				refusedCopies++
			}
			if q.Answer != properties.AnswerWritten {
				continue
			}
			if j != len(op.Requests)-1 || op.Outcome != properties.OutcomeOK {
				t.Fatalf("op %d (%s): request %d answered written is not its call's last (%d requests)", op.ID, op.Outcome, q.ID, len(op.Requests))
			}
			k := req{op.Client, q.ID}
			found := false
			for _, d := range digests[k] {
				for _, off := range landedAt[d] {
					found = found || off == op.Offset
				}
			}
			if !found || len(proposedBy[k]) == 0 || proposedBy[k][0] != q.Broker {
				t.Fatalf("op %d request %d written at %d by broker %d: proposed by %v, landed at %v", op.ID, q.ID, op.Offset, q.Broker, proposedBy[k], digests[k])
			}
			written++
		}
	}
	t.Logf("%d proposals, %d landings; %d requests answered written, %d answered NotLeader or Unavailable", len(l.Proposals), len(l.Landings), written, refusedCopies)
	if written == 0 || refusedCopies == 0 {
		t.Fatalf("%d written and %d refused copies: nothing to judge", written, refusedCopies)
	}
}
