package bareraft

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"syscall"
	"testing"
)

// The density BenchmarkBareRaft drives: a felixsim run's (-bareraft.density
// FILE, the output of `felixsim run --json`), else the flags below, whose
// defaults are a default run's (defaultDensity).
var (
	densityFile = flag.String("bareraft.density", "", "a `felixsim run --json` output file: drive raft at its \"density\" for its simulated seconds")
	groupsFlag  = flag.Int("bareraft.groups", defaultDensity.Groups, "raft groups (without -bareraft.density)")
	replicas    = flag.Int("bareraft.replicas", defaultDensity.Replicas, "replicas per group (without -bareraft.density)")
	ticks       = flag.Float64("bareraft.ticks", defaultDensity.TicksPerSecond, "ticks per simulated second (without -bareraft.density)")
	proposals   = flag.Float64("bareraft.proposals", defaultDensity.ProposalsPerSecond, "proposals per simulated second, over all groups (without -bareraft.density)")
	bytesFlag   = flag.Int("bareraft.bytes", defaultDensity.ProposalBytes, "bytes per proposal (without -bareraft.density)")
	simSeconds  = flag.Float64("bareraft.sim-seconds", 0, "simulated seconds per benchmark op (0: the density file's, else 10)")
)

// runDensity is the part of `felixsim run --json` the benchmark reads
// (runner.Density; this package imports nothing of felixsim).
type runDensity struct {
	Density *struct {
		RaftGroups            int     `json:"raft_groups"`
		Brokers               int     `json:"brokers"`
		TicksPerSimSecond     float64 `json:"ticks_per_sim_second"`
		ProposalsPerSimSecond float64 `json:"proposals_per_sim_second"`
		ProposalBytesMean     float64 `json:"proposal_bytes_mean"`
		SimSeconds            float64 `json:"sim_seconds"`
	} `json:"density"`
}

// benchConfig is the density and simulated seconds the flags ask for.
func benchConfig() (Config, float64, error) {
	secs := *simSeconds
	if *densityFile == "" {
		if secs == 0 {
			secs = 10
		}
		return Config{Groups: *groupsFlag, Replicas: *replicas, TicksPerSecond: *ticks, ProposalsPerSecond: *proposals, ProposalBytes: *bytesFlag}, secs, nil
	}
	data, err := os.ReadFile(*densityFile)
	if err != nil {
		return Config{}, 0, err
	}
	var rd runDensity
	if err := json.Unmarshal(data, &rd); err != nil || rd.Density == nil {
		return Config{}, 0, fmt.Errorf("%s: not a felixsim run --json output with a density (%v)", *densityFile, err)
	}
	d := rd.Density
	if secs == 0 {
		secs = d.SimSeconds
	}
	return Config{Groups: d.RaftGroups, Replicas: d.Brokers, TicksPerSecond: d.TicksPerSimSecond,
		ProposalsPerSecond: d.ProposalsPerSimSecond, ProposalBytes: max(ProposalBytesMin, int(math.Round(d.ProposalBytesMean)))}, secs, nil
}

// cpuNs is this process's user and system CPU time so far.
func cpuNs(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkBareRaft is the floor under a felixsim run: etcd raft alone at
// the run's density (see the flags), one op a harness run of the given
// simulated seconds, every proposal verified applied on every replica. It
// reports the process's CPU (rusage) per simulated second and per commit:
//
//	go test ./bench/bareraft -run '^$' -bench BareRaft -benchtime 1x -bareraft.density run.json
//
// make bench-floor runs it beside `felixsim run` at each seed's density.
func BenchmarkBareRaft(b *testing.B) {
	cfg, secs, err := benchConfig()
	if err != nil {
		b.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	simNs := int64(secs * 1e9)
	var cpu int64
	var commits uint64
	var work Stats
	b.ReportAllocs()
	for b.Loop() {
		h, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		before := cpuNs(b)
		h.Run(simNs)
		cpu += cpuNs(b) - before
		if err := h.Verify(); err != nil {
			b.Fatal(err)
		}
		commits += h.Stats().Committed
		work.add(h.Stats())
	}
	simTotal := secs * float64(b.N)
	b.ReportMetric(float64(cpu)/simTotal, "cpu-ns/sim-s")
	b.ReportMetric(float64(cpu)/1e3/float64(max(commits, 1)), "cpu-us/commit")
	b.ReportMetric(float64(commits)/simTotal, "commits/sim-s")
	for _, m := range []struct {
		n    uint64
		unit string
	}{{work.Sent, "msgs/sim-s"}, {work.Appends, "appends/sim-s"}, {work.AppendedEntries, "entries-sent/sim-s"},
		{work.Heartbeats, "heartbeats/sim-s"}, {work.Votes, "votes/sim-s"}, {work.Elections, "elections/sim-s"}} {
		b.ReportMetric(float64(m.n)/simTotal, m.unit)
	}
}

// add sums another run's message counts into s.
func (s *Stats) add(o Stats) {
	s.Sent, s.Appends, s.AppendedEntries = s.Sent+o.Sent, s.Appends+o.Appends, s.AppendedEntries+o.AppendedEntries
	s.Snapshots, s.Votes, s.Heartbeats, s.Elections = s.Snapshots+o.Snapshots, s.Votes+o.Votes, s.Heartbeats+o.Heartbeats, s.Elections+o.Elections
}
