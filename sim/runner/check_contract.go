package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/properties"
)

// checkContract runs the client-contract checks (properties/contract_*.go)
// over the history, the drain's operations included, the relay's trims and
// the ledger of the brokers' trace, and counts what each judged: a check
// that judged nothing proved nothing, and the counts say so
// (coverage.Contract* points).
func (r *run) checkContract(h *properties.History, ledger *properties.Ledger) {
	leases := properties.HistoryGroupLeases(h)
	r.violate(properties.InvariantGroupLeaseHonored, leases.Err)
	r.counts.AddN(coverage.ContractLeaseRedeliveryJudged, uint64(leases.HandoutPairs))
	r.counts.AddN(coverage.ContractLeaseExpiryJudged, uint64(leases.ExpiriesJudged))
	failed, err := properties.HistoryFailedOnlyWhenCertain(h)
	r.violate(properties.InvariantFailedOnlyWhenCertain, err)
	r.counts.AddN(coverage.ContractFailedJudged, uint64(failed))
	answered, err := properties.CommandAnswersHonest(h, r.relayTrims(), ledger)
	r.violate(properties.InvariantAnswersHonest, err)
	r.counts.AddN(coverage.ContractCommandAnswerJudged, uint64(answered))
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
