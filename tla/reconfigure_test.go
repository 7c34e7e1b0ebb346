package tla

import (
	"math/bits"
	"strings"
	"testing"
)

// reconfigureConfig is MCReconfigure's config.
func reconfigureConfig(t *testing.T) Config {
	t.Helper()
	c, err := Select("MCReconfigure", "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReconfigureIsExercised: MCReconfigure's exploration matches TLC's
// row in README.md (as TestMirrorMatchesTLC does for the others, in the
// same one exploration), and it reaches the states its membership change
// exists for, so those counts are not those of a change that never
// happens: a client's commit (commit 2,
// proposed after the change) answered by a leader counting over two
// voters (a voter removed before it), the
// spare b4 holding entries as a learner, and a broker that crashed after
// applying the change keeping it.
func TestReconfigureIsExercised(t *testing.T) {
	cfg := reconfigureConfig(t)
	var row *tlcRow
	for _, r := range readTLCResults(t) {
		if r.config == cfg.Name {
			row = &r
		}
	}
	if row == nil {
		t.Fatalf("README.md has no TLC result for %s", cfg.Name)
	}
	var removedThenCommitted, learnerHolds, keptAcrossCrash bool
	e := &explorer{m: model{cfg: cfg}, visit: func(s *State) {
		for b := 0; b < cfg.Brokers; b++ {
			br := &s.b[b]
			for c := 0; c < cfg.MaxCommits; c++ {
				if a := s.reply[c]; br.role == roleLeader && bits.OnesCount8(br.voters) == 2 && a.st != replyNone && a.idx > br.confAt {
					removedThenCommitted = true
				}
			}
			if br.confAt > 0 && br.applied < br.confAt {
				keptAcrossCrash = true
			}
		}
		if b4 := &s.b[3]; b4.logLen > 0 && b4.voters == 0 {
			learnerHolds = true
		}
	}}
	checkExplored(t, e, *row)
	if !removedThenCommitted || !learnerHolds || !keptAcrossCrash {
		t.Fatalf("MCReconfigure misses a membership state: removed voter then commit %t, learner holding entries %t, change kept across a crash %t",
			removedThenCommitted, learnerHolds, keptAcrossCrash)
	}
}

// TestReconfigureCountsOnlyVoters: in a state where leader b1 has applied
// removing b3, b1 holding an entry of its term on disk and b3's
// acknowledgement are no quorum of {b1, b2}; b1 and b2 are. And b4, in no
// configuration, cannot start an election.
func TestReconfigureCountsOnlyVoters(t *testing.T) {
	cfg := reconfigureConfig(t)
	m := &model{cfg: cfg}
	s := m.initState()
	for b := 0; b < 3; b++ {
		br := &s.b[b]
		br.term = 1
		br.log[0] = proposal{term: 1, cid: 1, kind: kindCommit, part: partWhole}
		br.log[1] = proposal{term: 1, kind: kindConf, part: partWhole, voters: 0b011}
		br.logLen, br.durable = 2, 2
	}
	ld := &s.b[0]
	ld.role, ld.votedFor = roleLeader, 1
	ld.commit, ld.applied, ld.confAt, ld.voters = 2, 2, 2, 0b011
	ld.appendLog(proposal{term: 1, cid: 2, kind: kindCommitIf, exp: 2, part: partWhole})
	ld.durable = 3
	ld.acked = [BrokersMax]uint8{0, 2, 3, 0} // b3 acknowledged index 3, b2 only 2
	var t2 State
	if m.advanceCommit(&s, 0, &t2) && t2.b[0].commit == 3 {
		t.Fatalf("b1 committed index 3 with b3's acknowledgement, b3 being removed")
	}
	s.b[0].acked[1] = 3
	if !m.advanceCommit(&s, 0, &t2) || t2.b[0].commit != 3 {
		t.Fatalf("b1 and b2, a quorum of {b1, b2}, do not commit index 3")
	}
	if m.timeout(&s, 3, &t2) {
		t.Fatalf("b4, in no configuration, starts an election")
	}
}

// TestCommittedNeverLostCountsNoLearner: in MCReconfigure, commit 1
// answered while only b1 and the spare b4 (never a voter) hold it on disk
// breaks CommittedNeverLost: b4's copy counts in no configuration.
func TestCommittedNeverLostCountsNoLearner(t *testing.T) {
	s := appliedOne() // every broker, b4 included, holds and applied commit 1
	s.b[1].truncateLog(0)
	s.b[2].truncateLog(0)
	s.b[1].commit, s.b[2].commit, s.b[1].applied, s.b[2].applied = 0, 0, 0, 0
	c := newChecker(reconfigureConfig(t))
	c.fill(&s)
	err := (*checker).committedNeverLost(c, &s)
	if err == nil || !strings.Contains(err.Error(), "only the raft logs of {b1, b4} hold it there on disk, a quorum of no configuration") {
		t.Fatalf("want a CommittedNeverLost violation naming {b1, b4}, got %v", err)
	}
}
