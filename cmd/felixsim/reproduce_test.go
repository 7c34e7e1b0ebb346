package main

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"pgregory.net/rapid"
)

// reproduceRerunsMax bounds how many of the property's checks also rerun
// the reproduce line (each rerun is a whole simulated run); every check
// parses it back.
const reproduceRerunsMax = 12

// TestReproduceCommandRoundTrips: for random options, the run's printed
// reproduce line parses (through the CLI's own flag parsing) back into the
// very options the run used, and (for the first reproduceRerunsMax checks)
// reruns to the same trace hash.
func TestReproduceCommandRoundTrips(t *testing.T) {
	reruns := 0
	rapid.Check(t, func(t *rapid.T) {
		opts := drawRunOptions(t)
		res, err := runner.Run(opts)
		if err != nil {
			t.Fatalf("run %+v: %v", opts, err)
		}
		back := parseReproduce(t, res.ReproduceCommand())
		if got, want := normalized(back), normalized(res.Options); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nparses to %+v\nthe run used %+v", res.ReproduceCommand(), got, want)
		}
		if reruns >= reproduceRerunsMax {
			return
		}
		reruns++
		again, err := runner.Run(back)
		if err != nil || again.TraceHash != res.TraceHash {
			t.Fatalf("%s: rerun hash %016x (err %v), the run's %016x", res.ReproduceCommand(), again.TraceHash, err, res.TraceHash)
		}
	})
}

// TestReproduceOddDurations: the two durations the issue found printed
// wrong (1500us as 1ms, 999us as 0ms) reproduce their runs' hashes.
func TestReproduceOddDurations(t *testing.T) {
	for _, d := range []string{"1500us", "999us"} {
		ra, _, done := parseRunArgs([]string{"--seed", "1", "--duration", d}, io.Discard, io.Discard)
		if done {
			t.Fatalf("--duration %s refused", d)
		}
		res, err := runner.Run(ra.opts)
		if err != nil {
			t.Fatal(err)
		}
		cmd := res.ReproduceCommand()
		if !strings.Contains(cmd, " --duration "+d+" ") {
			t.Fatalf("--duration %s reproduces as %q", d, cmd)
		}
		again, err := runner.Run(parseReproduce(t, cmd))
		if err != nil || again.TraceHash != res.TraceHash {
			t.Fatalf("%s: hash %016x (err %v), want %016x", cmd, again.TraceHash, err, res.TraceHash)
		}
	}
}

// drawRunOptions draws small options (runs of at most 300 ms of faults)
// with every option the CLI can set.
func drawRunOptions(t *rapid.T) runner.Options {
	o := runner.Options{
		Seed:    rapid.Uint64Range(0, 1<<40).Draw(t, "seed"),
		Brokers: rapid.IntRange(1, 5).Draw(t, "brokers"),
		Streams: rapid.IntRange(1, 2).Draw(t, "streams"),
		Shards:  uint32(rapid.IntRange(1, 4).Draw(t, "shards")),
		Clients: rapid.IntRange(2, 6).Draw(t, "clients"),
		// ValidateTrace is the CLI's default; a library run leaves it off.
		ValidateTrace: rapid.Bool().Draw(t, "validate trace"),
	}
	unit := rapid.SampledFrom([]int64{1, 1_000, 1_000_000}).Draw(t, "unit")
	o.DurationNs = rapid.Int64Range(1, 300_000_000/unit).Draw(t, "duration") * unit
	o.FaultGapMeanNs = rapid.Int64Range(1, 2_000_000).Draw(t, "gap") * 1_000
	o.ClientStartSpreadNs = rapid.SampledFrom([]int64{0, 0, o.DurationNs, rapid.Int64Range(0, 1e9).Draw(t, "spread ns")}).Draw(t, "spread")
	o.LivenessBudgetNs = rapid.Int64Range(1_000, 30_000).Draw(t, "liveness") * 1_000_000
	o.QuiesceBudgetNs = rapid.Int64Range(1_000, 20_000).Draw(t, "quiesce") * 1_000_000
	var kinds []string
	for _, k := range faultplan.AllFaultKinds() {
		if rapid.Bool().Draw(t, "kind "+k.String()) {
			kinds = append(kinds, k.String())
		}
	}
	fs := rapid.SampledFrom([]string{"all", "none", strings.Join(kinds, ",")}).Draw(t, "faults")
	if fs == "" {
		fs = "none"
	}
	var err error
	if o.Faults, err = runner.ParseFaults(fs); err != nil {
		t.Fatal(err)
	}
	var defects []string
	for _, name := range strings.Split(runner.DefectNames(), ",") {
		if rapid.IntRange(0, 3).Draw(t, "defect "+name) == 0 {
			defects = append(defects, name)
		}
	}
	if o.Defects, err = runner.ParseDefects(strings.Join(defects, ",")); err != nil {
		t.Fatal(err)
	}
	return o
}

// parseReproduce reads a reproduce line through the CLI's flag parsing.
func parseReproduce(t interface{ Fatalf(string, ...any) }, cmd string) runner.Options {
	args := strings.Fields(cmd)
	if len(args) < 2 || args[0] != "felixsim" || args[1] != "run" {
		t.Fatalf("reproduce line %q is not a felixsim run command", cmd)
	}
	ra, _, done := parseRunArgs(args[2:], io.Discard, io.Discard)
	if done {
		t.Fatalf("reproduce line %q does not parse", cmd)
	}
	return ra.opts
}

// normalized is o with its fault set in the form ParseFaults gives (an
// unset set means all).
func normalized(o runner.Options) runner.Options {
	fs, err := runner.ParseFaults(o.Faults.String())
	if err != nil {
		panic(err)
	}
	o.Faults = fs
	return o
}
