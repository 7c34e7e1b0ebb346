package runner

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/tla"
)

// BenchmarkDefaultRun is `felixsim run` with default options (3 brokers,
// 1 stream x 4 shards + the metadata group, every healable fault kind in
// swarm, the default workload, 60 simulated seconds of faults, then heal,
// liveness, quiesce and every check, the trace validated against the
// model as `felixsim run` validates it), one seed per iteration. It reports
// simulated seconds per wall second and per CPU second (user+system of the
// whole process: run it with -cpu 1), the run's density (events, message
// deliveries, timers and client operations per simulated second), the
// bytes the brokers wrote to their disks per simulated second and, with
// -v, the first seed's events by process and kind. (The wall clock and
// rusage are read here, in a benchmark, never on the simulated path.)
func BenchmarkDefaultRun(b *testing.B) {
	var simNs, wallNs int64
	var ops int
	var storeBytes uint64
	var kinds world.EventKindCounts
	cpu0 := cpuNs(b)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := Run(Options{Seed: uint64(i + 1), ValidateTrace: true})
		wallNs += time.Since(start).Nanoseconds()
		if err != nil {
			b.Fatal(err)
		}
		if !res.OK() {
			b.Fatalf("seed %d: %v", i+1, res.Violations)
		}
		simNs += res.SimNs
		ops += res.Ops.Total
		kinds.Add(res.EventsByKind)
		storeBytes += res.StoreWrittenBytes
		if i == 0 {
			logEventsByProcess(b, res)
		}
	}
	cpu := cpuNs(b) - cpu0
	simS := float64(simNs) / 1e9
	var events uint64
	for _, n := range kinds {
		events += n
	}
	b.ReportMetric(float64(simNs)/float64(wallNs), "sim-s/wall-s")
	b.ReportMetric(float64(simNs)/float64(cpu), "sim-s/cpu-s")
	b.ReportMetric(float64(ops)/float64(b.N), "ops/run")
	b.ReportMetric(float64(ops)/simS, "ops/sim-s")
	b.ReportMetric(float64(events)/simS, "events/sim-s")
	b.ReportMetric(float64(kinds[world.EvDeliver])/simS, "delivers/sim-s")
	b.ReportMetric(float64(kinds[world.EvTimer])/simS, "timers/sim-s")
	b.ReportMetric(float64(storeBytes)/simS, "store-B/sim-s")
}

// cpuNs is the process's user+system CPU time so far.
func cpuNs(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// logEventsByProcess logs one run's events per simulated second by
// process and kind, the busiest first.
func logEventsByProcess(b *testing.B, res *Result) {
	simS := float64(res.SimNs) / 1e9
	names := make([]string, 0, len(res.EventsByProcess))
	for name := range res.EventsByProcess {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c := res.EventsByProcess[name]
		var parts []string
		for k, n := range c.Map() {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, float64(n)/simS))
		}
		slices.Sort(parts)
		b.Logf("seed %d %-10s per sim-s: %s", res.Seed, name, strings.Join(parts, ", "))
	}
}

// BenchmarkLinearizableCheck times the per-scope linearizability check
// alone on the histories of seeds 1..b.N (default options, correct
// brokers): each iteration runs a seed, then checks its history against
// its replicas once more under the wall clock. It reports the median and
// maximum check time per history and the most model steps any scope took.
// Run it as `-benchtime 40x` for seeds 1..40.
func BenchmarkLinearizableCheck(b *testing.B) {
	var perRunNs []int64
	stepsMax, opsMax := 0, 0
	for i := 0; i < b.N; i++ {
		r := &run{opts: Options{Seed: uint64(i + 1)}.withDefaults()}
		if err := r.build(); err != nil {
			b.Fatal(err)
		}
		r.execute()
		if !r.res.OK() {
			r.c.Close()
			b.Fatalf("seed %d: %v", i+1, r.res.Violations)
		}
		logs := ReplicaLogsOf(r.c.Snapshot())
		ref := properties.LongestLogs(logs)
		start := time.Now()
		rep := properties.HistoryLinearizable(r.hist, &ref, 0)
		perRunNs = append(perRunNs, time.Since(start).Nanoseconds())
		r.c.Close()
		if rep.OK != len(rep.Scopes) {
			b.Fatalf("seed %d: %+v", i+1, rep)
		}
		for _, s := range rep.Scopes {
			stepsMax, opsMax = max(stepsMax, s.Steps), max(opsMax, s.Ops)
		}
	}
	slices.Sort(perRunNs)
	b.ReportMetric(float64(perRunNs[len(perRunNs)/2])/1e6, "ms-median/history")
	b.ReportMetric(float64(perRunNs[len(perRunNs)-1])/1e6, "ms-max/history")
	b.ReportMetric(float64(stepsMax), "steps-max/scope")
	b.ReportMetric(float64(opsMax), "ops-max/scope")
}

// discard is a trace sink that keeps nothing: the cost of emission alone.
type discard struct{}

func (discard) Step(*modeltrace.Step) {}

// BenchmarkTraceValidation measures, per default run (seeds 1..b.N), the
// run without tracing, the run emitting its trace to a sink that drops it
// (emission's cost), and validating the recorded trace alone; it reports
// each in ms per run and validation+emission as a percentage of the run.
func BenchmarkTraceValidation(b *testing.B) {
	var runNs, emitNs, validateNs int64
	var steps int
	for i := 0; i < b.N; i++ {
		o := Options{Seed: uint64(i + 1)}
		start := time.Now()
		if _, err := Run(o); err != nil {
			b.Fatal(err)
		}
		runNs += time.Since(start).Nanoseconds()
		o.TraceExport = discard{}
		start = time.Now()
		if _, err := Run(o); err != nil {
			b.Fatal(err)
		}
		emitNs += time.Since(start).Nanoseconds()
		var rec modeltrace.Recorder
		o.TraceExport, o.ValidateTrace = &rec, true
		res, err := Run(o)
		if err != nil {
			b.Fatal(err)
		}
		// Replay what the run validated: every step.
		validated := rec.Steps
		if res.TraceValidation == nil || res.TraceValidation.Steps != len(validated) {
			b.Fatalf("seed %d: the run validated %v of %d steps", i+1, res.TraceValidation, len(validated))
		}
		v := tla.NewTraceValidator(BrokersDefault)
		start = time.Now()
		modeltrace.Replay(validated, v)
		validateNs += time.Since(start).Nanoseconds()
		if !v.Result().Valid {
			b.Fatalf("seed %d: %v", i+1, v.Result().Rejection)
		}
		steps += len(validated)
	}
	n := float64(b.N)
	b.ReportMetric(float64(runNs)/n/1e6, "run-ms/run")
	b.ReportMetric(float64(emitNs-runNs)/n/1e6, "emit-ms/run")
	b.ReportMetric(float64(validateNs)/n/1e6, "validate-ms/run")
	b.ReportMetric(float64(steps)/n, "steps/run")
	b.ReportMetric(100*float64(validateNs+emitNs-runNs)/float64(runNs), "cost-%")
}
