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
	c, _ := contractOf(h, trims, ledger, properties.HistoryPart{})
	return c.violations(), c.judged
}

// contractVerdicts are the client-contract checks' results over a part of
// a history (see judgeHistory), and what they judged.
type contractVerdicts struct {
	leases   properties.GroupLeaseReport
	failed   error
	commands error
	judged   ContractJudged
}

// contractOf runs the client-contract checks over h, part of a history
// (the whole: the zero part), the relay's trims and the ledger; foreign
// reports a command whose verdict another part decides (see
// properties.CommandAnswersHonestIn).
func contractOf(h *properties.History, trims []properties.OutboxTrimCall, ledger *properties.Ledger, part properties.HistoryPart) (c contractVerdicts, foreign bool) {
	c.leases = properties.HistoryGroupLeases(h, ledger)
	c.judged.LeaseRedeliveries, c.judged.LeaseExpiries = c.leases.HandoutPairs, c.leases.ExpiriesJudged
	c.judged.FailedWrites, c.failed = properties.HistoryFailedOnlyWhenCertain(h)
	c.judged.CommandAnswers, c.commands, foreign = properties.CommandAnswersHonestIn(h, trims, ledger, part)
	return c, foreign
}

// violations are c's violations, in the order the contract checks report.
func (c *contractVerdicts) violations() []Violation {
	var out []Violation
	for _, f := range []struct {
		name properties.InvariantName
		err  error
	}{{properties.InvariantGroupLeaseHonored, c.leases.Err}, {properties.InvariantFailedOnlyWhenCertain, c.failed}, {properties.InvariantAnswersHonest, c.commands}} {
		if f.err != nil {
			out = append(out, newViolation(f.name, f.err.Error()))
		}
	}
	return out
}

// mergeContract merges the contract verdicts of a history's parts, in
// scope order.
func mergeContract(parts []contractVerdicts) contractVerdicts {
	var out contractVerdicts
	leases, failed, commands := make([]error, len(parts)), make([]error, len(parts)), make([]error, len(parts))
	for i, p := range parts {
		leases[i], failed[i], commands[i] = p.leases.Err, p.failed, p.commands
		out.leases.HandoutPairs += p.leases.HandoutPairs
		out.leases.ExpiriesJudged += p.leases.ExpiriesJudged
		j := &out.judged
		j.LeaseRedeliveries, j.LeaseExpiries = j.LeaseRedeliveries+p.judged.LeaseRedeliveries, j.LeaseExpiries+p.judged.LeaseExpiries
		j.FailedWrites, j.CommandAnswers = j.FailedWrites+p.judged.FailedWrites, j.CommandAnswers+p.judged.CommandAnswers
	}
	out.leases.Err, out.failed, out.commands = properties.MergeFindings(leases), properties.MergeFindings(failed), properties.MergeFindings(commands)
	return out
}

// checkContract records the client-contract checks' verdicts at the end of
// a run (the history's, judged with it: j) and counts what they judged.
func (r *run) checkContract(j *historyJudgment) {
	r.res.Violations = append(r.res.Violations, j.contract.violations()...)
	r.counts.AddN(coverage.ContractLeaseRedeliveryJudged, uint64(j.contract.judged.LeaseRedeliveries))
	r.counts.AddN(coverage.ContractLeaseExpiryJudged, uint64(j.contract.judged.LeaseExpiries))
	r.counts.AddN(coverage.ContractFailedJudged, uint64(j.contract.judged.FailedWrites))
	r.counts.AddN(coverage.ContractCommandAnswerJudged, uint64(j.contract.judged.CommandAnswers))
	landings, err := r.trace.gens.check()
	r.violate(properties.InvariantWriteInItsGeneration, err)
	r.counts.AddN(coverage.ContractGenerationJudged, uint64(landings))
	r.violate(properties.InvariantEphemeralLiveComplete, j.liveComplete)
	r.counts.AddN(coverage.ContractLiveReadJudged, uint64(j.liveReads))
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
