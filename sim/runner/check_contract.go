package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/properties"
)

// checkContract runs the client-contract checks (properties/contract_*.go)
// over the history, the drain's operations included, and counts what each
// judged: a check that judged nothing proved nothing, and the counts say
// so (coverage.Contract* points).
func (r *run) checkContract(h *properties.History) {
	leases := properties.HistoryGroupLeases(h)
	r.violate(properties.InvariantGroupLeaseHonored, leases.Err)
	r.counts.AddN(coverage.ContractLeaseRedeliveryJudged, uint64(leases.HandoutPairs))
	r.counts.AddN(coverage.ContractLeaseExpiryJudged, uint64(leases.ExpiriesJudged))
	failed, err := properties.HistoryFailedOnlyWhenCertain(h)
	r.violate(properties.InvariantFailedOnlyWhenCertain, err)
	r.counts.AddN(coverage.ContractFailedJudged, uint64(failed))
}
