package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/properties"
)

// ContractJudged counts what the client-contract checks judged: a check
// that judged nothing proved nothing, and the run's coverage says so
// (coverage.Contract* points).
type ContractJudged struct {
	LeaseRedeliveries, LeaseExpiries, FailedWrites, CommandAnswers int
}

// ContractViolations runs the client-contract checks over a history (the
// drain's operations included), the relay's trims (nil: none judged) and
// the ledger of the brokers' trace (properties/contract_*.go): leases,
// a client's certainty, and the honesty of answers to group commands and
// trims. OutboxFromStart runs with the other outbox checks
// (OutboxViolations).
func ContractViolations(h *properties.History, trims []properties.OutboxTrimCall, ledger *properties.Ledger) ([]Violation, ContractJudged) {
	var out []Violation
	add := func(name properties.InvariantName, err error) {
		if err != nil {
			out = append(out, newViolation(name, err.Error()))
		}
	}
	var j ContractJudged
	leases := properties.HistoryGroupLeases(h, ledger)
	add(properties.InvariantGroupLeaseHonored, leases.Err)
	j.LeaseRedeliveries, j.LeaseExpiries = leases.HandoutPairs, leases.ExpiriesJudged
	var err error
	j.FailedWrites, err = properties.HistoryFailedOnlyWhenCertain(h)
	add(properties.InvariantFailedOnlyWhenCertain, err)
	j.CommandAnswers, err = properties.CommandAnswersHonest(h, trims, ledger)
	add(properties.InvariantAnswersHonest, err)
	return out, j
}

// checkContract runs the client-contract checks at the end of a run and
// counts what they judged.
func (r *run) checkContract(h *properties.History, ledger *properties.Ledger) {
	vs, j := ContractViolations(h, r.relayTrims(), ledger)
	r.res.Violations = append(r.res.Violations, vs...)
	r.counts.AddN(coverage.ContractLeaseRedeliveryJudged, uint64(j.LeaseRedeliveries))
	r.counts.AddN(coverage.ContractLeaseExpiryJudged, uint64(j.LeaseExpiries))
	r.counts.AddN(coverage.ContractFailedJudged, uint64(j.FailedWrites))
	r.counts.AddN(coverage.ContractCommandAnswerJudged, uint64(j.CommandAnswers))
	landings, err := r.trace.gens.check()
	r.violate(properties.InvariantWriteInItsGeneration, err)
	r.counts.AddN(coverage.ContractGenerationJudged, uint64(landings))
	reads, err := r.trace.leaders.check(h)
	r.violate(properties.InvariantEphemeralLiveComplete, err)
	r.counts.AddN(coverage.ContractLiveReadJudged, uint64(reads))
}

// relayTrims are the relay's recorded trims, each request with the copies
// of it the network delivered to a broker; none when the record was cut
// (a later trim might reuse a kept one's request id unseen).
func (r *run) relayTrims() []properties.OutboxTrimCall {
	trims, cut := r.relay.TrimCalls()
	if cut {
		return nil
	}
	tally := r.c.RequestDeliveries()
	copies := func(id uint64) (uint32, bool) { return tally.Copies(int(r.relaySimID), id) }
	for i := range trims {
		trims[i].Requests = properties.HistoryRequestsOf(trims[i].Requests, copies)
	}
	return trims
}
