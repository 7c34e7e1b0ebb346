package main

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
)

// runFlags are the flags that describe a run drawn from a seed, shared by
// the commands that start one (run, shrink): runner.Options.Settings
// names the same settings.
type runFlags struct {
	seed                                        *uint64
	nodes, streams, shards, clients             *int
	duration, gap, liveness, quiesce, spreadDur *time.Duration
	changeLiveness                              *time.Duration
	faults, defects, steer                      *string
}

// addRunFlags registers the run flags on fs, their ranges on b.
func addRunFlags(fs *flag.FlagSet, b *bounds) *runFlags {
	return &runFlags{
		seed:     b.Uint64("seed", 0, 0, math.MaxUint64, "the run's seed (required unless a plan is given): faults, workload, network and raft timeouts all derive from it"),
		nodes:    b.Int("nodes", runner.BrokersDefault, 1, runner.BrokersMax, "brokers in the cluster"),
		streams:  b.Int("streams", runner.StreamsDefault, 1, runner.StreamsMax, fmt.Sprintf("streams in the cluster (streams x shards at most %d)", runner.ShardGroupsMax)),
		shards:   b.Int("shards", runner.ShardsDefault, 1, runner.ShardsMax, "shards per stream"),
		duration: b.Duration("duration", time.Duration(runner.DurationNsDefault), time.Nanosecond, durationMax, "simulated fault phase (workload and faults), e.g. 60s"),
		faults: fs.String("faults", "all", "fault kinds: all (every fault kind), all,operator (operator actions too), none, or a comma-separated list of "+
			"sim fault kinds (operator: every operator action; felixsim run --list-faults lists them)"),
		steer: fs.String("steer", faultplan.SteerNone, "the steering arm the plan is drawn with (felixsim sweep --steer picks one per seed): "+
			strings.Join(faultplan.SteerArmNames(), ", ")),
		defects:   fs.String("defects", "none", "planted broker bugs to switch on: none, or a comma-separated list of "+runner.DefectNames()),
		clients:   b.Int("clients", runner.ClientsDefault, runner.ClientsMin, runner.ClientsMax, "workload clients (tenants alternate)"),
		gap:       b.Duration("fault-gap", time.Duration(runner.FaultGapMeanNsDefault), time.Nanosecond, durationMax, "mean simulated time between drawn faults"),
		liveness:  b.Duration("liveness-budget", time.Duration(runner.LivenessBudgetNsDefault), time.Nanosecond, durationMax, "simulated time after heal for every shard to elect a leader and take a commit"),
		spreadDur: b.Duration("client-start-spread", 0, 0, durationMax, "spread the clients' first invocations over this much of the fault phase (0: all start at once)"),
		quiesce:   b.Duration("quiesce-budget", time.Duration(runner.QuiesceBudgetNsDefault), time.Nanosecond, durationMax, "simulated time after liveness for every call to complete and every replica to catch up"),
		changeLiveness: b.Duration("change-liveness-budget", time.Duration(runner.ChangeLivenessBudgetNsDefault), time.Nanosecond, durationMax,
			"while a membership change is in flight, how long a shard group with a connected majority may take to acknowledge a write"),
	}
}

// options builds run options from flags already checked against their
// ranges: the fault and defect lists parsed, the topology's shared cap
// (streams x shards) checked, trace validation on (each command that
// offers --validate-trace sets it).
func (rf *runFlags) options() (runner.Options, error) {
	fset, err := runner.ParseFaults(*rf.faults)
	if err != nil {
		return runner.Options{}, fmt.Errorf("--faults: %w", err)
	}
	d, err := runner.ParseDefects(*rf.defects)
	if err != nil {
		return runner.Options{}, fmt.Errorf("--defects: %w", err)
	}
	arm, err := faultplan.SteerArmNamed(*rf.steer)
	if err != nil {
		return runner.Options{}, fmt.Errorf("--steer: %w", err)
	}
	if arm.Name == faultplan.SteerNone {
		arm = faultplan.SteerArm{} // the zero arm: how every unsteered run draws its plan
	}
	if *rf.streams**rf.shards > runner.ShardGroupsMax {
		return runner.Options{}, fmt.Errorf("--streams %d x --shards %d refused: a broker hosts at most %d shard groups", *rf.streams, *rf.shards, runner.ShardGroupsMax)
	}
	return runner.Options{Seed: *rf.seed, Brokers: *rf.nodes, Streams: *rf.streams, Shards: uint32(*rf.shards),
		DurationNs: rf.duration.Nanoseconds(), Faults: fset, Defects: d, Clients: *rf.clients,
		FaultGapMeanNs: rf.gap.Nanoseconds(), ClientStartSpreadNs: rf.spreadDur.Nanoseconds(),
		LivenessBudgetNs: rf.liveness.Nanoseconds(), QuiesceBudgetNs: rf.quiesce.Nanoseconds(),
		ChangeLivenessBudgetNs: rf.changeLiveness.Nanoseconds(), ValidateTrace: true, Steer: arm}, nil
}
