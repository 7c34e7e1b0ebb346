package runner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/faultplan"

	"github.com/felixsim/felixsim/node"
)

// Defaults of an Options field left zero.
const (
	BrokersDefault          = 3
	StreamsDefault          = 1
	ShardsDefault           = 4
	DurationNsDefault       = 60_000_000_000 // 60 s of faults and workload
	FaultGapMeanNsDefault   = 2_000_000_000  // a fault every 2 s on average
	LivenessBudgetNsDefault = 30_000_000_000 // leaders and a commit per shard within 30 s of heal
	QuiesceBudgetNsDefault  = 20_000_000_000 // replicas caught up within 20 s after liveness
	// ChangeLivenessBudgetNsDefault: during a membership change, a
	// majority-connected shard group acknowledges a write within 1 s: five
	// of the cluster's longest election timeouts (10 ticks of 10 ms,
	// randomized up to twice that), on a calm network. Clean sweeps stay
	// under 0.3 s (docs/performance.md, "The cost of the checks").
	ChangeLivenessBudgetNsDefault = 1_000_000_000
	ClientsDefault                = 4
	// StreamsMax and ShardsMax bound the topology a run may ask for.
	StreamsMax = 16
	ShardsMax  = 64
	// BrokersMax bounds a cluster (a raft group's peers), ShardGroupsMax
	// the streams x shards one broker hosts.
	BrokersMax     = node.PeersMax
	ShardGroupsMax = node.ShardGroupsMax
	// ClientsMin and ClientsMax bound the workload's clients (at least
	// one per tenant).
	ClientsMin = 2
	ClientsMax = 16
	// DurationNsMax caps every duration a run takes (its fault phase, the
	// fault gap, the budgets, the client start spread): the plan's cap,
	// which `felixsim run`'s duration flags share.
	DurationNsMax = faultplan.DurationNsMax
)

// Options describe one run; build them by field name. Zero fields take
// the defaults above.
type Options struct {
	// Seed fixes the run: faults, workload, network, raft timeouts.
	Seed uint64
	// Brokers is the cluster size.
	Brokers int
	// Streams is how many streams (each with Shards shards) the cluster hosts.
	Streams int
	// Shards is each stream's shard count.
	Shards uint32
	// DurationNs is the fault phase: the workload runs and faults strike.
	DurationNs int64
	// Faults selects the fault kinds; see ParseFaults. The zero value means all.
	Faults FaultSet
	// FaultGapMeanNs is the mean time between faults.
	FaultGapMeanNs int64
	// Clients is the number of workload clients (tenants alternate).
	Clients int
	// ClientStartSpreadNs spreads the clients' first invocations over the
	// fault phase (workload.Config.StartSpreadNs); 0 starts them at once.
	ClientStartSpreadNs int64
	// Steer is the steering arm the run's plan is drawn with (faultplan.SteerArm,
	// set by --steer); the zero value, like faultplan.SteerNone, draws it as
	// always. A given plan records what the arm decided.
	Steer faultplan.SteerArm
	// LivenessBudgetNs bounds the simulated time from heal until every
	// shard has a leader and has accepted a commit.
	LivenessBudgetNs int64
	// QuiesceBudgetNs bounds the simulated time for every call to complete
	// and every running replica to apply everything committed.
	QuiesceBudgetNs int64
	// ChangeLivenessBudgetNs bounds, while a membership change is in
	// flight, how long a shard group with a connected majority of voters
	// may take to acknowledge a write (LivenessDuringChange); zero takes
	// ChangeLivenessBudgetNsDefault (felixsim run --change-liveness-budget;
	// a saved plan records it). It judges only: the run, and its trace,
	// are the same for any budget.
	ChangeLivenessBudgetNs int64
	// Defects are planted broker bugs (off by default), to show the checks
	// catch them.
	Defects node.Defects
	// KeepHistory keeps the workload's history in the Result.
	KeepHistory bool
	// LinearizableStepsMax bounds the linearizability search per scope, in
	// model steps (0: properties.LinearizableStepsMax); a scope that runs
	// out is counted unknown.
	LinearizableStepsMax int
	// RecordTrace keeps every executed event in Result.Trace (up to
	// world.TraceEventsMaxDefault), so two runs can be compared event by
	// event; the trace hash is computed either way.
	RecordTrace bool
	// Plan, when set, replaces the plan drawn from the seed (a saved plan
	// replayed, or a scenario written by hand); its node count must be the
	// world's (brokers + clients + the liveness probe + the outbox relay)
	// and its faults may target brokers and the relay only.
	Plan *faultplan.Plan
	// PlanPath is the plan file Plan was read from (`felixsim run --plan`);
	// the reproduce line names it.
	PlanPath string
	// ArtifactDir is the artifact directory Plan was read from (`felixsim
	// replay DIR`); the reproduce line is then `felixsim replay DIR`.
	ArtifactDir string
	// Observe records leadership terms in Result.Leadership (for the
	// timeline) by watching the cluster between events; the trace and its
	// hash are the same either way.
	Observe bool
	// UntilNs, when positive, captures the cluster's state as the last
	// event at or before this simulated time left it, in Result.StateAt;
	// the run itself goes on to its end unchanged.
	UntilNs int64
	// UntilScope names a scope (tenant/namespace/stream/shard) whose log
	// and state the UntilNs capture lists on every broker.
	UntilScope string
	// ValidateTrace validates the brokers' abstract trace against the
	// model (tla.TraceValidator) as the run goes; a rejected trace is a
	// TraceNotInModel violation.
	ValidateTrace bool
	// TraceExport, when set, also receives every abstract trace step.
	TraceExport modeltrace.Sink
	// Progress, when set, is called every ProgressReportEveryNs of
	// simulated time with how far the run has got (for a progress display;
	// it must not touch the run). The trace is the same either way.
	Progress func(RunProgress)
	// judgeWhole judges the history whole, never in parts (the
	// tests compare the two; see judgeHistory).
	judgeWhole bool
	// sinkHeldMax is the relay's Config.SinkHeldMax (0: its default).
	sinkHeldMax int
	// partOpsMax is how many operations a part of the history judged in
	// parts holds at most (0: partOpsMax; 1: a scope a part).
	partOpsMax int
	// ledgerHeldMax is how many steps the ledger holds in memory (0:
	// ledgerHeldMax).
	ledgerHeldMax int
	// judged, when set, is called once the run is judged, before what it
	// kept on disk is released (tests read the ledger there); partJudged
	// once each part of the history is, its data still held (a benchmark
	// reads the live heap there).
	judged     func(*run)
	partJudged func()
	// historyHeldOps is the workload's Config.HeldOps (0: its default);
	// tests shrink it to stream almost the whole history to disk.
	historyHeldOps int
}

// FaultSet is the fault kinds a run may draw; build it with ParseFaults.
type FaultSet struct {
	set   bool
	kinds []faultplan.FaultKind
}

// AllFaults is every fault kind sim knows, disk corruption included, and
// no operator action (faultplan.FaultKind.Operator: those are asked for by
// name, or all at once with "operator"; a run that draws them gets an
// administered stream and the probe's traffic on it, which reshuffles
// the whole run). A drawn plan corrupts the disks of a minority of
// brokers at most (see drawPlan): a broker whose store is corrupt is
// replaced (a new identity on a new disk, through a membership change),
// and a minority lost at once is within what the cluster must survive.
func AllFaults() FaultSet { return FaultSet{set: true, kinds: kindsWhere(false)} }

// OperatorActions is every operator action sim knows.
func OperatorActions() FaultSet { return FaultSet{set: true, kinds: kindsWhere(true)} }

// kindsWhere lists the kinds whose Operator() is operator, in order.
func kindsWhere(operator bool) []faultplan.FaultKind {
	var out []faultplan.FaultKind
	for _, k := range faultplan.AllFaultKinds() {
		if k.Operator() == operator {
			out = append(out, k)
		}
	}
	return out
}

// NoFaults is a run without faults.
func NoFaults() FaultSet { return FaultSet{set: true} }

// ParseFaults reads "all" (every fault kind), "all,operator" (every kind,
// operator actions included), "none" or a comma-separated list of sim
// fault kind names (e.g. "kill,partition,clockjump"), in which
// "operator" stands for every operator action.
func ParseFaults(s string) (FaultSet, error) {
	switch s {
	case "all":
		return AllFaults(), nil
	case "all,operator":
		return FaultSet{set: true, kinds: faultplan.AllFaultKinds()}, nil
	case "none":
		return NoFaults(), nil
	case "":
		return FaultSet{}, fmt.Errorf("fault list refused: empty (use all, none or kind,kind,…)")
	}
	seen := map[faultplan.FaultKind]bool{}
	var ks []faultplan.FaultKind
	for _, name := range strings.Split(s, ",") {
		group := map[string]FaultSet{"operator": OperatorActions()}[strings.TrimSpace(name)]
		if !group.set {
			k, err := faultplan.ParseFaultKind(strings.TrimSpace(name))
			if err != nil {
				return FaultSet{}, fmt.Errorf("fault list %q refused: %w", s, err)
			}
			group.kinds = []faultplan.FaultKind{k}
		}
		for _, k := range group.kinds {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return FaultSet{set: true, kinds: ks}, nil
}

// Kinds lists the selected kinds in order (all healable kinds when unset).
func (f FaultSet) Kinds() []faultplan.FaultKind {
	if !f.set {
		return AllFaults().kinds
	}
	return append([]faultplan.FaultKind(nil), f.kinds...)
}

// String renders the set as ParseFaults reads it.
func (f FaultSet) String() string {
	ks := f.Kinds()
	if len(ks) == 0 {
		return "none"
	}
	for _, named := range []struct {
		name string
		set  FaultSet
	}{{"all", AllFaults()}, {"operator", OperatorActions()}, {"all,operator", FaultSet{set: true, kinds: faultplan.AllFaultKinds()}}} {
		if slices.Equal(ks, named.set.kinds) {
			return named.name
		}
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.String()
	}
	return strings.Join(names, ",")
}

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options { return o.withDefaults() }

func (o Options) withDefaults() Options {
	d := o
	setInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setI64 := func(v *int64, def int64) {
		if *v == 0 {
			*v = def
		}
	}
	setInt(&d.Brokers, BrokersDefault)
	setInt(&d.Streams, StreamsDefault)
	setInt(&d.Clients, ClientsDefault)
	if d.Shards == 0 {
		d.Shards = ShardsDefault
	}
	setI64(&d.DurationNs, DurationNsDefault)
	setI64(&d.FaultGapMeanNs, FaultGapMeanNsDefault)
	setI64(&d.LivenessBudgetNs, LivenessBudgetNsDefault)
	setI64(&d.QuiesceBudgetNs, QuiesceBudgetNsDefault)
	setI64(&d.ChangeLivenessBudgetNs, ChangeLivenessBudgetNsDefault)
	return d
}

// changeLivenessBudgetNs is the change-liveness budget in force.
func (o *Options) changeLivenessBudgetNs() int64 {
	if o.ChangeLivenessBudgetNs == 0 {
		return ChangeLivenessBudgetNsDefault
	}
	return o.ChangeLivenessBudgetNs
}

// Validate refuses options no run can honour, naming the field and why.
func (o Options) Validate() error {
	d := o.withDefaults()
	switch {
	case d.Brokers < 1 || d.Brokers > node.PeersMax:
		return fmt.Errorf("run: %d brokers refused: need 1..%d", d.Brokers, node.PeersMax)
	case d.Streams < 1 || d.Streams > StreamsMax:
		return fmt.Errorf("run: %d streams refused: need 1..%d", d.Streams, StreamsMax)
	case d.Shards < 1 || d.Shards > ShardsMax:
		return fmt.Errorf("run: %d shards refused: need 1..%d", d.Shards, ShardsMax)
	case d.DurationNs < 0 || d.DurationNs > DurationNsMax:
		return fmt.Errorf("run: duration %d ns refused: want 0..%d", d.DurationNs, int64(DurationNsMax))
	case d.FaultGapMeanNs > DurationNsMax || d.LivenessBudgetNs > DurationNsMax || d.QuiesceBudgetNs > DurationNsMax ||
		d.ChangeLivenessBudgetNs > DurationNsMax || d.ClientStartSpreadNs > DurationNsMax:
		return fmt.Errorf("run: fault gap %d ns, liveness budget %d ns, quiesce budget %d ns, change-liveness budget %d ns, client start spread %d ns refused: each at most %d",
			d.FaultGapMeanNs, d.LivenessBudgetNs, d.QuiesceBudgetNs, d.ChangeLivenessBudgetNs, d.ClientStartSpreadNs, int64(DurationNsMax))
	case d.ClientStartSpreadNs < 0:
		return fmt.Errorf("run: client start spread %d ns refused: negative", d.ClientStartSpreadNs)
	case d.ChangeLivenessBudgetNs < 0:
		return fmt.Errorf("run: change liveness budget %d ns refused: negative", d.ChangeLivenessBudgetNs)
	case d.FaultGapMeanNs < 0 || d.LivenessBudgetNs < 0 || d.QuiesceBudgetNs < 0:
		return fmt.Errorf("run: fault gap %d ns, liveness budget %d ns, quiesce budget %d ns refused: negative", d.FaultGapMeanNs, d.LivenessBudgetNs, d.QuiesceBudgetNs)
	case d.ChangeLivenessBudgetNs < 0:
		return fmt.Errorf("run: change-liveness budget %d ns refused: negative", d.ChangeLivenessBudgetNs)
	case d.Streams*int(d.Shards) > node.ShardGroupsMax:
		return fmt.Errorf("run: %d streams x %d shards refused: a broker hosts at most %d shard groups", d.Streams, d.Shards, node.ShardGroupsMax)
	case d.UntilNs < 0:
		return fmt.Errorf("run: until %d ns refused: negative", d.UntilNs)
	case d.Clients < ClientsMin || d.Clients > ClientsMax:
		return fmt.Errorf("run: %d clients refused: need %d..%d (at least one per tenant)", d.Clients, ClientsMin, ClientsMax)
	}
	return nil
}
