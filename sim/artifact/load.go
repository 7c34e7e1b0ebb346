package artifact

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/workload"
)

// NoFlags is the set function of a command that takes no run flags.
func NoFlags(string) bool { return false }

// CommandDefaults are the run options of a command that replays a plan
// without run flags of its own: `felixsim run`'s defaults (it validates
// the trace), for what an older plan file does not record.
func CommandDefaults() runner.Options { return runner.Options{ValidateTrace: true} }

// LoadRun reads the plan file at planPath and returns the options that run
// it again, and its meta. given are the options the command was given and
// set reports which of its flags were set on the command line: every
// setting the file records is the file's, and a set flag that differs from
// it is refused, naming each (runner.ConflictError); a setting an older
// file does not record is given's.
func LoadRun(planPath string, given runner.Options, set func(flag string) bool) (runner.Options, Meta, error) {
	p, meta, err := ReadPlan(planPath)
	if err != nil {
		return runner.Options{}, Meta{}, err
	}
	o, err := OptionsFor(p, meta, given, set)
	if err != nil {
		return runner.Options{}, Meta{}, fmt.Errorf("%s: %w", planPath, err)
	}
	o.PlanPath = planPath
	return o, meta, nil
}

// OptionsFor rebuilds the run options of plan p described by m (see
// LoadRun for given and set). An older plan that does not record its
// broker count, with no --nodes given, gets the brokers its nodes leave
// after the run's other nodes (clients, the liveness probe, the outbox
// relay: runner.WorldNodes says).
func OptionsFor(p *faultplan.Plan, m Meta, given runner.Options, set func(flag string) bool) (runner.Options, error) {
	o, err := m.recorded(given)
	if err != nil {
		return runner.Options{}, err
	}
	if m.Brokers == 0 && !set("nodes") {
		clients := int(p.Param(workload.ParamClients, runner.ClientsDefault))
		others := runner.WorldNodes(runner.Options{Brokers: 1, Clients: clients}) - 1
		if o.Brokers = p.Nodes - others; o.Brokers < 1 {
			return runner.Options{}, fmt.Errorf("plan for %d nodes with %d clients refused: no room for a broker", p.Nodes, clients)
		}
	}
	o.ClientStartSpreadNs = p.Param(workload.ParamStartSpreadNs, o.ClientStartSpreadNs)
	wp, err := o.WithPlan(p)
	if err != nil {
		return runner.Options{}, err
	}
	if err := runner.ConflictError("the plan", runner.ConflictingSettings(given, wp, set)); err != nil {
		return runner.Options{}, err
	}
	return wp, wp.Validate()
}

// recorded is given with every setting m records put in.
func (m Meta) recorded(given runner.Options) (runner.Options, error) {
	o := given
	if m.Brokers > 0 {
		o.Brokers = m.Brokers
	}
	if m.Streams > 0 {
		o.Streams = m.Streams
	}
	if m.Shards > 0 {
		o.Shards = uint32(m.Shards)
	}
	if m.Defects != "" {
		d, err := runner.ParseDefects(m.Defects)
		if err != nil {
			return runner.Options{}, err
		}
		o.Defects = d
	}
	if m.Faults != "" {
		f, err := runner.ParseFaults(m.Faults)
		if err != nil {
			return runner.Options{}, err
		}
		o.Faults = f
	}
	for _, v := range []struct{ to, from *int64 }{{&o.FaultGapMeanNs, &m.FaultGapNs},
		{&o.LivenessBudgetNs, &m.LivenessBudgetNs}, {&o.QuiesceBudgetNs, &m.QuiesceBudgetNs}, {&o.ChangeLivenessBudgetNs, &m.ChangeLivenessBudgetNs}} {
		if *v.from > 0 {
			*v.to = *v.from
		}
	}
	if m.Format >= 3 {
		o.ValidateTrace, o.LinearizableStepsMax = m.ValidateTrace, m.LinearizableStepsMax
	}
	return o, nil
}

// CheckReproduced compares a re-run's trace hash with the one the plan
// records: nil when they are equal or the plan records none; else an
// error saying the re-run is not the saved run (and, when the binary is
// not the one that drew the plan, which revisions differ).
func (m Meta) CheckReproduced(hash uint64) error {
	if !m.HasTraceHash || hash == m.TraceHash {
		return nil
	}
	err := fmt.Errorf("the re-run's trace hash %016x is not the %016x the plan records: this is not the saved run", hash, m.TraceHash)
	if rev := Revision(); m.Revision != "" && m.Revision != rev {
		err = fmt.Errorf("%w (the plan was drawn by felixsim %s; this is %s)", err, m.Revision, rev)
	}
	return err
}

// ReadHistory reads a history file (properties' encoding, v1 or v2), as
// OpenInput allows it: a regular file of at most HistoryBytesMax bytes.
func ReadHistory(path string) (*properties.History, error) {
	f, err := OpenInput(path, "history", HistoryBytesMax)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := properties.ParseHistory(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}
