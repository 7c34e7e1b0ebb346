package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// TestParseFaultsRoundTrip: every accepted fault selection renders back to
// text that parses to the same kinds.
func TestParseFaultsRoundTrip(t *testing.T) {
	for _, in := range []string{"all", "none", "kill", "partition,kill", "kill,partition,kill", "corrupt,clockjump,loss"} {
		f, err := ParseFaults(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		g, err := ParseFaults(f.String())
		if err != nil {
			t.Fatalf("%q renders as %q, which does not parse: %v", in, f.String(), err)
		}
		if f.String() != g.String() || len(f.Kinds()) != len(g.Kinds()) {
			t.Fatalf("%q: %q then %q", in, f.String(), g.String())
		}
	}
	if f, _ := ParseFaults("none"); len(f.Kinds()) != 0 {
		t.Fatalf("none has kinds %v", f.Kinds())
	}
	all, _ := ParseFaults("all")
	if len(all.Kinds())+len(OperatorActions().Kinds()) != len(faultplan.AllFaultKinds()) || (FaultSet{}).String() != "all" {
		t.Fatalf("all = %v; zero set = %q", all.Kinds(), FaultSet{}.String())
	}
	for _, bad := range []string{"", "kil", "kill,,pause", "all,kill"} {
		if _, err := ParseFaults(bad); err == nil {
			t.Errorf("fault list %q accepted", bad)
		}
	}
}

func TestParseDefects(t *testing.T) {
	d, err := ParseDefects("stale-read")
	if err != nil || !d.StateReadWithoutReadIndex || defectsString(d) != "stale-read" {
		t.Fatalf("stale-read: %+v %v", d, err)
	}
	if d, err := ParseDefects("none"); err != nil || d != (node.Defects{}) {
		t.Fatalf("none: %+v %v", d, err)
	}
	if _, err := ParseDefects("bogus"); err == nil {
		t.Fatal("unknown defect accepted")
	}
}

func TestOptionsRefused(t *testing.T) {
	bad := map[string]Options{
		"zero-size cluster":   {Brokers: -1},
		"too many brokers":    {Brokers: node.PeersMax + 1},
		"too many streams":    {Streams: StreamsMax + 1},
		"too many shards":     {Shards: ShardsMax + 1},
		"too many groups":     {Streams: 8, Shards: 64},
		"negative duration":   {DurationNs: -1},
		"negative budget":     {LivenessBudgetNs: -5},
		"one client":          {Clients: 1},
		"plan for wrong size": {Plan: &faultplan.Plan{Seed: 1, Nodes: 2}},
	}
	for name, o := range bad {
		if _, err := Run(o); err == nil {
			t.Errorf("%s: run accepted %+v", name, o)
		}
	}
}

// TestRunDeterministicAndShaped: one seed twice in one process gives the
// same trace hash and counts; the summary ends with the trace hash; the
// options are echoed with defaults filled in.
func TestRunDeterministicAndShaped(t *testing.T) {
	o := Options{Seed: 42, DurationNs: 3e9, Streams: 2, Shards: 2}
	a, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !a.OK() || a.TraceHash != b.TraceHash || a.Ops != b.Ops || a.SimNs != b.SimNs {
		t.Fatalf("runs differ or fail:\n%s\n%s", a.Summary(), b.Summary())
	}
	if a.Options.Brokers != BrokersDefault || a.Options.Clients != ClientsDefault || a.Plan == nil {
		t.Fatalf("options not echoed with defaults: %+v", a.Options)
	}
	if a.History != nil {
		t.Fatal("history kept without KeepHistory")
	}
	streams := map[string]bool{}
	o.KeepHistory = true
	c, err := Run(o)
	if err != nil || c.History == nil || c.TraceHash != a.TraceHash {
		t.Fatalf("KeepHistory run: %v", err)
	}
	for _, op := range c.History.Ops {
		streams[op.Scope.Stream] = true
	}
	if len(streams) != 3 || !streams[LiveStream] {
		t.Fatalf("2 streams asked (and the live stream), workload used %v", streams)
	}
}

// FuzzParseFaults: any fault list parses to a set whose rendering parses
// back to the same set, or is refused; never a panic.
func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"all", "none", "kill,partition", "corrupt", "kill,,x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := ParseFaults(s)
		if err != nil {
			return
		}
		back, err := ParseFaults(fs.String())
		if err != nil || back.String() != fs.String() {
			t.Fatalf("%q renders as %q, which parses to %q (%v)", s, fs.String(), back.String(), err)
		}
	})
}

func TestClip(t *testing.T) {
	short := "short"
	if clip(short) != short {
		t.Fatal("short message changed")
	}
	long := string(make([]byte, ViolationMessageLenMax+10))
	if got := clip(long); len(got) <= ViolationMessageLenMax || len(got) > ViolationMessageLenMax+40 || got[len(got)-1] != ')' {
		t.Fatalf("clip of %d bytes gave %d bytes ending %q", len(long), len(got), got[len(got)-10:])
	}
}

// TestCrashReported: a panic inside the simulated world ends the run with
// a Crash violation carrying the panic, instead of killing the process.
func TestCrashReported(t *testing.T) {
	r := &run{opts: Options{Seed: 5, DurationNs: 2e9, Faults: NoFaults()}.withDefaults()}
	if err := r.build(); err != nil {
		t.Fatal(err)
	}
	defer r.c.Close()
	r.c.World.At(1e9, 0, func() { panic("planted broker invariant") })
	r.execute()
	if !r.res.Crashed() || !strings.Contains(r.res.Violations[0].Message, "planted broker invariant") || r.res.SimNs != 1e9 {
		t.Fatalf("crash not reported: %+v", r.res.Violations)
	}
}

// TestDrawnPlansAimAtTheLeader: drawn plans aim some node faults at
// whoever leads when they fire, and never corruption.
func TestDrawnPlansAimAtTheLeader(t *testing.T) {
	roles := 0
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := Run(Options{Seed: seed, DurationNs: 15_000_000_000})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, f := range res.Plan.Faults {
			if f.Role == "" {
				continue
			}
			roles++
			if f.Kind == faultplan.FaultCorrupt {
				t.Fatalf("seed %d: corruption aimed by role: %s", seed, f)
			}
		}
		if len(res.Violations) > 0 {
			t.Fatalf("seed %d: %v", seed, res.Violations)
		}
	}
	if roles == 0 {
		t.Fatal("five drawn plans aimed no fault at the leader")
	}
}
