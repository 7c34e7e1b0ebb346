package bareraft

import (
	"strings"
	"testing"
)

// defaultDensity is a default felixsim run's density (issue 27: 5 groups
// on 3 brokers, 100 ticks and 188 proposals of 126 bytes per second).
var defaultDensity = Config{Groups: 5, Replicas: 3, TicksPerSecond: 100, ProposalsPerSecond: 188, ProposalBytes: 126}

// run builds a harness for cfg and runs it for durNs.
func run(t *testing.T, cfg Config, durNs int64) *Harness {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.Run(durNs)
	return h
}

// TestHarnessCommitsEveryProposalOnEveryReplica: at a run's density the
// harness makes every proposal due (instants 0, 1/188 s, ... up to 5 s:
// 941 of them), raft accepts each, and every replica of its group applies
// each exactly once; with 5 replicas and at a rate that makes the logs
// compact, too.
func TestHarnessCommitsEveryProposalOnEveryReplica(t *testing.T) {
	for _, tc := range []struct {
		name                string
		cfg                 Config
		durNs               int64
		proposals, ticks    uint64
		compactsAtLeastOnce bool
	}{
		{"default run", defaultDensity, 5e9, 5*188 + 1, 5*100 + 1, false},
		{"5 replicas", Config{Groups: 2, Replicas: 5, TicksPerSecond: 50, ProposalsPerSecond: 40, ProposalBytes: 8}, 3e9, 3*40 + 1, 3*50 + 1, false},
		{"compacting", Config{Groups: 2, Replicas: 3, TicksPerSecond: 100, ProposalsPerSecond: 1000, ProposalBytes: 300}, 3e9, 3*1000 + 1, 3*100 + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := run(t, tc.cfg, tc.durNs)
			if err := h.Verify(); err != nil {
				t.Fatal(err)
			}
			st := h.Stats()
			if st.Proposed != tc.proposals || st.Pending != 0 || st.Committed != tc.proposals || st.Ticks != tc.ticks || st.SimNs != tc.durNs {
				t.Fatalf("stats %+v: want %d proposals all committed, %d ticks, %d ns", st, tc.proposals, tc.ticks, tc.durNs)
			}
			// Without faults: every group elects a leader, which sends each
			// proposal's entry to every follower, and no snapshot.
			followers := uint64(tc.cfg.Replicas - 1)
			if st.Elections < uint64(tc.cfg.Groups) || st.Votes < uint64(tc.cfg.Groups)*followers || st.Snapshots != 0 ||
				st.AppendedEntries < tc.proposals*followers || st.Sent < st.Appends+st.Votes+st.Heartbeats {
				t.Fatalf("stats %+v: want at least %d elections and their votes, %d entries sent, no snapshot", st, tc.cfg.Groups, tc.proposals*followers)
			}
			for _, g := range h.groups {
				for _, r := range g.replicas {
					if tc.compactsAtLeastOnce && r.compacted <= 1 {
						t.Errorf("group %d replica %d never compacted its log (applied %d)", g.id, r.id, r.applied)
					}
				}
			}
		})
	}
}

// TestVerifyRefusesUnfairWork: Verify rejects a replica that skipped an
// apply, applied one twice, or applied a proposal raft never accepted;
// so a harness that did less than the raft work it claims cannot pass.
func TestVerifyRefusesUnfairWork(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(h *Harness)
		want   string
	}{
		{"an apply skipped", func(h *Harness) {
			r := h.groups[1].replicas[2]
			r.appliedSeq[7], r.appliedCount = false, r.appliedCount-1
		}, "never applied accepted proposal 7"},
		{"a count short", func(h *Harness) { h.groups[0].replicas[0].appliedCount-- }, "were accepted"},
		{"applied twice", func(h *Harness) { h.groups[2].replicas[1].twice = 3 }, "applied proposal 3 twice"},
		{"never accepted", func(h *Harness) { h.groups[3].proposed[5] = false }, "which raft never accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := run(t, defaultDensity, 2e9)
			if err := h.Verify(); err != nil {
				t.Fatalf("before breaking it: %v", err)
			}
			tc.break_(h)
			err := h.Verify()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestConfigValidate: each bad field is refused by name.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Groups = 0 }, "groups 0"},
		{func(c *Config) { c.Replicas = 8 }, "replicas 8"},
		{func(c *Config) { c.TicksPerSecond = 0 }, "ticks per second 0"},
		{func(c *Config) { c.ProposalsPerSecond = -1 }, "proposals per second -1"},
		{func(c *Config) { c.ProposalBytes = 7 }, "proposal bytes 7"},
		{func(c *Config) { c.HeartbeatTicks = -1 }, "heartbeat ticks -1"},
	} {
		c := defaultDensity
		tc.edit(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %q", c, err, tc.want)
		}
	}
	if err := defaultDensity.Validate(); err != nil {
		t.Fatal(err)
	}
}
