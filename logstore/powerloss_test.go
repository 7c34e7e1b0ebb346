package logstore

// The power-loss property: random batches committed on vfs.Mem, with the
// power cut after a drawn number of file operations (possibly in the middle
// of a write, which then lands only in part), then a crash that keeps the
// synced bytes and, with TornTail, a drawn number of sectors of the rest.
// After every reopen the store must equal exactly the state after some
// prefix of the batches, and that prefix must hold every batch whose Commit
// returned nil.

import (
	"errors"
	"fmt"
	"testing"

	"go.etcd.io/raft/v3/raftpb"
	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/vfs"
)

// plStats counts interesting events across a TestPowerLoss run, so the test
// can require that the generator reached them.
type powerLossStats struct {
	cutMidCommit  int // a Commit failed because the power was cut
	inflightKept  int // the unacknowledged batch survived the crash
	inflightLost  int // it did not
	tornTruncated int // Open truncated a torn tail
	cutInRecovery int // the power was cut while Open recovered
	rewrites      int // a Rewrite completed
	rewriteCut    int // the power was cut during a Rewrite
}

var plStats powerLossStats

// errPowerCut is what a cutFS returns once its operation budget is spent.
var errPowerCut = errors.New("power cut")

// cutFS passes calls to a Mem until budget file writes and syncs were made;
// the write that spends the budget lands only its first partBytes bytes.
type cutFS struct {
	*vfs.Mem
	budget    int // operations left; < 0 means unlimited
	partBytes int
}

type cutFile struct {
	vfs.File
	fs *cutFS
}

func (c *cutFS) Create(name string) (vfs.File, error) {
	f, err := c.Mem.Create(name)
	if err != nil {
		return nil, err
	}
	return cutFile{f, c}, nil
}

func (c *cutFS) Open(name string) (vfs.File, error) {
	f, err := c.Mem.Open(name)
	if err != nil {
		return nil, err
	}
	return cutFile{f, c}, nil
}

// spend reports whether an operation may run in full.
func (c *cutFS) spend() bool {
	if c.budget < 0 {
		return true
	}
	if c.budget == 0 {
		return false
	}
	c.budget--
	return c.budget > 0
}

func (c *cutFS) Rename(oldname, newname string) error {
	if !c.spend() {
		return errPowerCut
	}
	return c.Mem.Rename(oldname, newname)
}

func (c *cutFS) SyncDir(dir string) error {
	if !c.spend() {
		return errPowerCut
	}
	return c.Mem.SyncDir(dir)
}

func (f cutFile) Write(p []byte) (int, error) {
	if f.fs.budget == 0 {
		return 0, errPowerCut
	}
	if !f.fs.spend() {
		n := min(f.fs.partBytes, len(p))
		f.File.Write(p[:n])
		return n, errPowerCut
	}
	return f.File.Write(p)
}

func (f cutFile) Sync() error {
	if !f.fs.spend() {
		return errPowerCut
	}
	return f.File.Sync()
}

func (f cutFile) Truncate(sizeBytes int64) error {
	if !f.fs.spend() {
		return errPowerCut
	}
	return f.File.Truncate(sizeBytes)
}

var (
	plScopes = []felix.Scope{scopeOf("t1", 0), scopeOf("t1", 1), scopeOf("t2", 0)}
	plKeys   = []string{"a", "b", "c"}
	// plGroupNames are the consumer groups drawn batches write.
	plGroupNames = []string{"g1", "g2"}
)

// drawBatch draws a valid batch for the store's current content.
func drawBatch(t *rapid.T, s *Store) *Batch {
	b := &Batch{}
	for _, id := range []uint64{1, 2} {
		if rapid.Bool().Draw(t, "raft") {
			b.Groups = append(b.Groups, drawGroupWrite(t, s, id))
		}
	}
	for _, sc := range plScopes {
		if !rapid.Bool().Draw(t, "scope") {
			continue
		}
		next := uint64(1)
		if ents := s.LogScan(sc, 0, 0); len(ents) > 0 {
			next = ents[len(ents)-1].Offset + 1
		}
		n := rapid.IntRange(0, 3).Draw(t, "records")
		for i := 0; i < n; i++ {
			rec := felix.Record{Event: felix.EventPublish, Payload: []byte(rapid.StringN(0, 40, -1).Draw(t, "payload"))}
			for j := rapid.IntRange(0, 3).Draw(t, "ops"); j > 0; j-- {
				op := felix.StateOp{Kind: felix.OpDelete, Key: rapid.SampledFrom(plKeys).Draw(t, "key")}
				if rapid.IntRange(0, 3).Draw(t, "put") > 0 {
					op.Kind, op.Value = felix.OpPut, []byte(rapid.StringN(1, 600, -1).Draw(t, "value"))
				}
				rec.Ops = append(rec.Ops, op)
			}
			var intent *Intent
			if rapid.Bool().Draw(t, "intent") {
				intent = &Intent{Event: felix.EventEnqueue, Data: []byte("g")}
			}
			b.AddRecord(sc, next, rec, intent)
			next++
		}
		b.Positions = append(b.Positions, PositionRow{Scope: sc, Position: Position{AppliedIndex: next, NextOffset: next}})
		if rapid.Bool().Draw(t, "consumerGroup") {
			b.ConsumerGroups = append(b.ConsumerGroups, ConsumerGroupRow{Scope: sc, Group: drawConsumerGroup(t, next)})
		}
		for _, o := range s.OutboxScan(sc) {
			if rapid.IntRange(0, 3).Draw(t, "deliver") == 0 {
				b.Outbox = append(b.Outbox, OutboxRow{Kind: WriteDelete, Scope: sc, Offset: o.Offset})
			}
		}
	}
	return b
}

// drawConsumerGroup draws one consumer group's state over a log ending
// before next: a position, and leases on offsets from it.
func drawConsumerGroup(t *rapid.T, next uint64) statemachine.GroupState {
	g := statemachine.GroupState{Name: rapid.SampledFrom(plGroupNames).Draw(t, "groupName")}
	g.CommittedOffset = rapid.Uint64Range(0, next).Draw(t, "committed")
	g.DeliverNextOffset = g.CommittedOffset
	for i := rapid.IntRange(0, 3).Draw(t, "leases"); i > 0 && g.DeliverNextOffset < next; i-- {
		g.Leases = append(g.Leases, statemachine.Lease{Offset: g.DeliverNextOffset, ExpiryNs: rapid.Int64Range(0, 1<<40).Draw(t, "expiry")})
		g.DeliverNextOffset++
	}
	return g
}

func drawGroupWrite(t *rapid.T, s *Store, id uint64) GroupWrite {
	gs := s.RaftStorage(id)
	first, _ := gs.FirstIndex()
	last, _ := gs.LastIndex()
	w := GroupWrite{Group: id}
	// Entries replace a suffix, never an applied entry: raft never cuts one.
	from := rapid.Uint64Range(max(first, s.AppliedIndex(id)+1), last+1).Draw(t, "from")
	term := rapid.Uint64Range(1, 5).Draw(t, "term")
	for i := rapid.IntRange(0, 4).Draw(t, "entries"); i > 0; i-- {
		w.Entries = append(w.Entries, entry(from, term, rapid.StringN(0, 300, -1).Draw(t, "data")))
		from++
	}
	if rapid.Bool().Draw(t, "hardState") {
		w.HardState = &raftpb.HardState{Term: new(term), Commit: new(rapid.Uint64Range(0, from).Draw(t, "commit"))}
	}
	if len(w.Entries) > 0 {
		last = from - 1
	}
	if stored := max(s.AppliedIndex(id), 1); stored <= last && rapid.Bool().Draw(t, "applied") {
		w.AppliedIndex = rapid.Uint64Range(stored, last).Draw(t, "appliedIndex")
	}
	return w
}

// replayBatches builds the store the batches make on a fault-free FS.
func replayBatches(t *rapid.T, batches []*Batch) string {
	s, err := Open(Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := s.Commit(b); err != nil {
			t.Fatalf("reference commit: %v", err)
		}
	}
	return dump(s)
}

// checkPrefix returns an error unless got equals the store after
// batches[:k] for some k in [acked, len(batches)], and returns that k.
func checkPrefix(t *rapid.T, got string, batches []*Batch, acked int) (int, error) {
	for k := len(batches); k >= acked; k-- {
		if replayBatches(t, batches[:k]) == got {
			return k, nil
		}
	}
	return 0, fmt.Errorf("reopened store equals no prefix of %d batches with at least the %d acknowledged ones:\n%s", len(batches), acked, got)
}

// powerLossRound commits drawn batches until the power is cut or the round
// ends, crashes the Mem, reopens and checks. It returns the batches now
// durable.
func powerLossRound(t *rapid.T, mem *vfs.Mem, history []*Batch, defects Defects) ([]*Batch, error) {
	fs := &cutFS{Mem: mem, budget: -1}
	s, err := Open(Options{FS: fs, Defects: defects})
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	fs.budget = rapid.IntRange(1, 25).Draw(t, "budget")
	fs.partBytes = rapid.IntRange(0, 700).Draw(t, "partBytes")
	acked := len(history)
	for i := rapid.IntRange(1, 6).Draw(t, "batches"); i > 0; i-- {
		if rapid.IntRange(0, 5).Draw(t, "rewrite") == 0 {
			if err := s.Rewrite(); err != nil {
				if !errors.Is(err, errPowerCut) {
					t.Fatalf("rewrite failed without a power cut: %v", err)
				}
				plStats.rewriteCut++
				break
			}
			plStats.rewrites++
		}
		b := drawBatch(t, s)
		if b.Empty() {
			continue
		}
		history = append(history, b)
		if err := s.Commit(b); err != nil {
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("commit refused a drawn batch: %v", err)
			}
			plStats.cutMidCommit++
			break
		}
		acked = len(history)
	}
	keep := rapid.IntRange(-1, 6).Draw(t, "keepSectors")
	if keep < 0 {
		mem.Crash(vfs.LoseUnsynced)
	} else {
		mem.Crash(vfs.TornTail(func(string, int) int { return keep }))
	}
	return reopenAndCheck(t, mem, history, acked, defects)
}

func reopenAndCheck(t *rapid.T, mem *vfs.Mem, history []*Batch, acked int, defects Defects) ([]*Batch, error) {
	sizeBefore := 0
	if raw, err := vfs.ReadAll(mem, FileName); err == nil {
		sizeBefore = len(raw)
	}
	if rapid.IntRange(0, 4).Draw(t, "cutRecovery") == 0 {
		// Cut the power during recovery's truncate or sync, then crash again.
		fs := &cutFS{Mem: mem, budget: rapid.IntRange(1, 2).Draw(t, "recoveryBudget")}
		if _, err := Open(Options{FS: fs, Defects: defects}); errors.Is(err, errPowerCut) {
			plStats.cutInRecovery++
		}
		mem.Crash(vfs.LoseUnsynced)
	}
	s, err := Open(Options{FS: mem, Defects: defects})
	if err != nil {
		return nil, fmt.Errorf("reopen after crash: %w", err)
	}
	if s.sizeBytes < int64(sizeBefore) {
		plStats.tornTruncated++
	}
	k, err := checkPrefix(t, dump(s), history, acked)
	if err != nil {
		return nil, err
	}
	if len(history) > acked {
		if k > acked {
			plStats.inflightKept++
		} else {
			plStats.inflightLost++
		}
	}
	if err := s.CheckStateMatchesLog(); err != nil {
		return nil, err
	}
	return history[:k], nil
}

func TestPowerLoss(t *testing.T) {
	plStats = powerLossStats{}
	defer func() {
		t.Logf("power-loss coverage: %+v", plStats)
		if !t.Failed() && (plStats.cutMidCommit == 0 || plStats.inflightKept == 0 || plStats.inflightLost == 0 ||
			plStats.tornTruncated == 0 || plStats.cutInRecovery == 0 || plStats.rewrites == 0 || plStats.rewriteCut == 0) {
			t.Errorf("the generator never reached some crash shape: %+v", plStats)
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		mem := vfs.NewMem()
		var history []*Batch
		for round := rapid.IntRange(1, 4).Draw(t, "rounds"); round > 0; round-- {
			var err error
			if history, err = powerLossRound(t, mem, history, 0); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestPowerLossHasTeeth shows the check fails on a store that skips fsync:
// the same drawn scenarios, run on the planted bug, must be caught.
func TestPowerLossHasTeeth(t *testing.T) {
	scenario := rapid.Custom(func(t *rapid.T) string {
		mem := vfs.NewMem()
		var history []*Batch
		for round := 0; round < 3; round++ {
			var err error
			if history, err = powerLossRound(t, mem, history, DefectSkipFsync); err != nil {
				return err.Error()
			}
		}
		return ""
	})
	caught, seeds := 0, 20
	for seed := 0; seed < seeds; seed++ {
		if msg := scenario.Example(seed); msg != "" {
			if caught == 0 {
				t.Logf("skip-fsync caught (seed %d): %.200s", seed, msg)
			}
			caught++
		}
	}
	t.Logf("skip-fsync caught in %d of %d scenarios", caught, seeds)
	if caught == 0 {
		t.Fatal("the power-loss check never failed on a store that skips fsync")
	}
}
