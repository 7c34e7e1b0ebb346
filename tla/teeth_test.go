package tla

import (
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// Every invariant of the mirror is shown failing: through a planted defect
// the explorer must catch (the MCDefect* configs, whose verdicts and depths
// TestMirrorMatchesTLC compares with TLC's), or on a state broken in the
// one way the check exists for (the check order would otherwise let an
// earlier one fire).

func mainConfig(t *testing.T) Config {
	t.Helper()
	cfg, err := Select("", "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestDefectElectStale: a failover that promotes a broker lacking an
// acknowledged commit loses it.
func TestDefectElectStale(t *testing.T) {
	cfg, err := Select("MCDefectElectStale", "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil || res.Violation.Invariant != properties.InvariantCommittedNeverLost {
		t.Fatalf("want CommittedNeverLost violated, got %+v", res.Violation)
	}
	last := res.Violation.Trace[len(res.Violation.Trace)-1].Action
	promotes := 0
	for _, st := range res.Violation.Trace {
		if strings.HasPrefix(st.Action, "Promote(") {
			promotes++
		}
	}
	if promotes < 2 || !strings.Contains(res.Violation.Message, "leader of term 2, does not hold it") {
		t.Fatalf("want the loss through a failover to a leader of term 2 lacking the commit, got %d promotions and %q", promotes, res.Violation.Message)
	}
	t.Logf("caught at depth %d after %s: %s", res.Depth, last, res.Violation.Message)
}

// appliedOne is a state where b1 leads term 1 (b2 voted for it, b3 learned
// the term from its append) and every broker has committed and applied
// commit 1 (offset 1), acknowledged to its client.
func appliedOne() State {
	s := State{nextCid: 2}
	for b := 0; b < BrokersMax; b++ {
		s.b[b].term = 1
	}
	s.b[0].votedFor, s.b[0].role, s.b[0].acked = 1, roleLeader, [BrokersMax]uint8{0, 1, 1}
	s.b[1].votedFor = 1
	p := proposal{term: 1, cid: 1, kind: kindCommit, part: partWhole}
	for b := 0; b < BrokersMax; b++ {
		br := &s.b[b]
		br.appendLog(p)
		br.durable, br.commit, br.applied = 1, 1, 1
		r := p
		r.term = 0
		br.appendShard(r)
		br.applyRecord(r, 1)
	}
	s.reply[0] = answer{st: replyWritten, at: 1, idx: 1, term: 1}
	return s
}

func checkOne(t *testing.T, s State, name properties.InvariantName, want string) {
	t.Helper()
	c := newChecker(mainConfig(t))
	if got, err := c.check(&appliedOneCopy); got != "" {
		t.Fatalf("baseline state violates %s: %v", got, err)
	}
	c.fill(&s)
	for _, inv := range invariants {
		if inv.name != name {
			continue
		}
		err := inv.check(c, &s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: want a violation mentioning %q, got %v", name, want, err)
		}
		return
	}
	t.Fatalf("no invariant %s", name)
}

var appliedOneCopy = appliedOne()

func TestInvariantsHaveTeeth(t *testing.T) {
	s := appliedOne()
	s.b[1].kv[0] = slot{}
	checkOne(t, s, properties.InvariantNoPartialCommit, "event without its state")

	s = appliedOne()
	s.b[2].kv[1].ver = 3
	checkOne(t, s, properties.InvariantVersionIsOffset, "version 2")

	s = appliedOne()
	s.b[0].kv[1].ver = 3
	checkOne(t, s, properties.InvariantStateMatchesLog, "folds to")

	s = appliedOne()
	s.b[1].truncateLog(0)
	s.b[2].truncateLog(0)
	s.b[1].commit, s.b[2].commit = 0, 0
	checkOne(t, s, properties.InvariantCommittedNeverLost, "only the raft logs of {b1} hold it there on disk, a quorum of no configuration")

	s = appliedOne()
	s.b[0].log[0].term = 2
	checkOne(t, s, properties.InvariantCommittedPrefixAgreement, "committed raft index 1")

	s = appliedOne()
	s.b[2].shard[0].cid = 2
	checkOne(t, s, properties.InvariantCommittedPrefixAgreement, "at offset 0")

	s = appliedOne()
	s.reply[1] = answer{st: replyRefused, at: 2, exp: 2, idx: 2}
	checkOne(t, s, properties.InvariantConditionalWrites, "which is the offset it expected")

	s = appliedOne()
	s.reply[1] = answer{st: replyRefused, at: 3, exp: 1, idx: 1}
	checkOne(t, s, properties.InvariantConditionalWrites, "so the true tail was 1")
}

// TestStatesCapIsUnknown: an exploration past its cap is an error, never
// a pass.
func TestStatesCapIsUnknown(t *testing.T) {
	res, err := explore(mainConfig(t), 1000)
	if err == nil || res != nil || !strings.Contains(err.Error(), "not a pass") {
		t.Fatalf("want an error past 1000 states, got %v, %v", res, err)
	}
}

// TestMalformedStatePanicsWithValues: a state breaking a field invariant
// is a mirror bug and panics, naming the values.
func TestMalformedStatePanicsWithValues(t *testing.T) {
	m := model{cfg: mainConfig(t)}
	good := appliedOne()
	m.assertWellFormed(&good)
	cases := []struct {
		name string
		bad  func(s *State)
		want string
	}{
		{"applied past commit", func(s *State) { s.b[0].applied = 2 }, "applied 2, commit 1"},
		{"durable past log", func(s *State) { s.b[1].durable = 3 }, "durable 3"},
		{"stale log slot", func(s *State) { s.b[2].log[4] = proposal{cid: 1} }, "log slot 4 past logLen 1"},
		{"term too high", func(s *State) { s.b[1].term = 9 }, "term 9 (max 2)"},
		{"follower with acks", func(s *State) { s.b[2].acked[0] = 1 }, "role 0, votes 0, acked [1 0 0 0]"},
	}
	for _, c := range cases {
		s := appliedOne()
		c.bad(&s)
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Fatalf("%s: want a panic mentioning %q, got %v", c.name, c.want, r)
				}
			}()
			m.assertWellFormed(&s)
		}()
	}
}
