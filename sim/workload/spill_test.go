package workload

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/world"
)

// lossyLink loses, duplicates and delays messages, so writes time out,
// retry and land twice: every request record the history keeps.
var lossyLink = world.LinkConfig{LatencyMinNs: 1e6, LatencyMaxNs: 5e6, LossPpm: 50_000, DuplicatePpm: 50_000}

// encoded is h in the history encoding.
func encoded(t *testing.T, h *properties.History) string {
	t.Helper()
	var b bytes.Buffer
	if err := properties.EncodeHistory(&b, h); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSpilledHistoryEqualsHeld: a history streamed to disk a block at a
// time reads back byte for byte equal to the same run's history held
// whole, requests and their delivered copies included, and it really
// was streamed (most of it sat on disk).
func TestSpilledHistoryEqualsHeld(t *testing.T) {
	for _, seed := range []uint64{11, 12} {
		held, c := runWorkloadWith(t, seed, 8*secondNs, lossyLink, Config{HeldOps: 1 << 20}, true)
		if held.rec.spilled != 0 {
			t.Fatalf("seed %d: the held run spilled %d ops", seed, held.rec.spilled)
		}
		want := encoded(t, mustHistory(t, held))
		c.Close()
		spilled, c := runWorkloadWith(t, seed, 8*secondNs, lossyLink, Config{HeldOps: spillTestHeldOps}, true)
		n := spilled.OpsRecorded()
		if spilled.rec.spilled < n/2 || n < 3*spillTestHeldOps {
			t.Fatalf("seed %d: %d of %d ops spilled, want most of at least %d", seed, spilled.rec.spilled, n, 3*spillTestHeldOps)
		}
		// The held ops: the cap, the block being filled, and the block an
		// open call or this event's completion kept back.
		if spilled.rec.held > spillTestHeldOps+2*spilled.rec.blockOps {
			t.Fatalf("seed %d: %d ops held in memory, the cap is %d", seed, spilled.rec.held, spillTestHeldOps)
		}
		b := mustHistory(t, spilled)
		copies := 0
		for i := range b.Ops {
			for _, q := range b.Ops[i].Requests {
				copies += int(q.Delivered)
			}
		}
		if copies == 0 {
			t.Fatalf("seed %d: no delivered request copies recorded: the comparison would not see them", seed)
		}
		if got := encoded(t, b); got != want {
			t.Fatalf("seed %d: spilled history differs from the held one (%d vs %d bytes)", seed, len(got), len(want))
		}
		// Read twice: the file stays whole and open for more.
		if again := encoded(t, mustHistory(t, spilled)); again != want {
			t.Fatalf("seed %d: a second read of the spilled history differs", seed)
		}
		c.Close()
	}
}

// TestSpillLeavesNoFile: the scratch file is unlinked as soon as it is
// made, so the directory stays empty during the run and after it.
func TestSpillLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	w, c := runWorkloadWith(t, 13, 6*secondNs, world.LinkConfig{}, Config{HeldOps: spillTestHeldOps, SpillDir: dir}, false)
	defer c.Close()
	if w.rec.spilled == 0 {
		t.Fatal("nothing spilled: the test proves nothing")
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("spill dir holds %d entries during the run", len(es))
	}
	mustHistory(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("spill dir holds %d entries after close", len(es))
	}
}

// TestSpillFailureIsNoHistory: a spill directory that does not exist, or
// a spill file broken behind the recorder's back, gives an error naming
// the cause and never a history short of what was recorded.
func TestSpillFailureIsNoHistory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	w, c := runWorkloadWith(t, 13, 6*secondNs, world.LinkConfig{}, Config{HeldOps: spillTestHeldOps, SpillDir: missing}, false)
	c.Close()
	if _, err := w.History(); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("missing spill dir: history error %v, want one naming the directory", err)
	}
	if w.OpsRecorded() < 2*spillTestHeldOps {
		t.Fatalf("only %d ops recorded: the spill was never tried", w.OpsRecorded())
	}

	w, c = runWorkloadWith(t, 13, 6*secondNs, world.LinkConfig{}, Config{HeldOps: spillTestHeldOps}, false)
	c.Close()
	if err := w.rec.spill.file.Flush(); err != nil {
		t.Fatal(err)
	}
	// A line appended behind the recorder's back.
	if _, err := w.rec.spill.file.File().Write([]byte("{\"id\": 99999999, \"kind\": \"bogus\"}\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.History(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line %d", w.rec.spilled+1)) {
		t.Fatalf("broken spill file: history error %v, want one naming line %d", err, w.rec.spilled+1)
	}
	w, c = runWorkloadWith(t, 13, 6*secondNs, world.LinkConfig{}, Config{HeldOps: spillTestHeldOps}, false)
	c.Close()
	w.rec.spill.file.Flush()
	size, _ := w.rec.spill.file.File().Size()
	if err := w.rec.spill.file.File().Truncate(size - 10); err != nil {
		t.Fatal(err)
	}
	if _, err := w.History(); err == nil {
		t.Fatal("a spill file cut short read back without an error")
	}
}

// TestHeldOpsRefused: a history held in no memory at all is refused.
func TestHeldOpsRefused(t *testing.T) {
	if _, err := New(Config{Brokers: 3, FirstSimID: 3, Shards: 4, HeldOps: -1}); err == nil || !strings.Contains(err.Error(), "held ops -1") {
		t.Fatalf("held ops -1: %v", err)
	}
}

// spillTestHeldOps is the tests' held history: blocks of 64, one held.
const spillTestHeldOps = 64

// TestSpillWaitsForTheEvent: a block goes to disk only once every
// operation in it completed before the invoking event, so the op a
// completion returns can still be filled in during its own event; a
// pending operation holds its block (and every later one) in memory.
func TestSpillWaitsForTheEvent(t *testing.T) {
	r := &recorder{opsMax: 1 << 20, blockOps: 2, heldBlocksMax: 1, spill: historySpill{dir: t.TempDir()}}
	defer r.spill.close()
	read := properties.HistoryOp{Kind: properties.HistoryStateGet}
	for i := 0; i < 4; i++ { // two full blocks at 10 ns
		r.invoke(read, 10)
	}
	r.complete(0, 20, properties.OutcomeOK, "")
	r.complete(1, 30, properties.OutcomeOK, "")
	r.invoke(read, 30) // op 1 completed in this event: nothing goes
	if r.spilled != 0 {
		t.Fatalf("spilled %d ops, one of them completed in the invoking event", r.spilled)
	}
	op := r.op(1)
	op.Found = true // the completing event fills in its answer
	r.invoke(read, 31)
	if r.spilled != 2 {
		t.Fatalf("spilled %d ops, want the first block of 2", r.spilled)
	}
	r.invoke(read, 40) // ops 2 and 3 still open: their block stays
	if r.spilled != 2 {
		t.Fatalf("spilled %d ops past an open call", r.spilled)
	}
	h, err := r.history()
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 7 || !h.Ops[1].Found || h.Ops[2].Outcome != properties.OutcomePending {
		t.Fatalf("history read back wrong: %d ops, op 2 found %t, op 3 %s", len(h.Ops), h.Ops[1].Found, h.Ops[2].Outcome)
	}
}

// FuzzSpillRead: whatever lines a spill file holds, reading it back
// never panics, and it yields a history only when the lines are the
// operations written, ids 1..n in order, each a valid operation under
// its scope's tag. (The file's line count against what was written is
// vfs.LineFile's, tested there.)
func FuzzSpillRead(f *testing.F) {
	valid := func(n int) []byte {
		s := historySpill{dir: f.TempDir()}
		defer s.close()
		ops := make([]properties.HistoryOp, n)
		for i := range ops {
			ops[i] = properties.HistoryOp{ID: uint64(i + 1), Kind: properties.HistoryStateGet, Key: "k", InvokeNs: 10, CompleteNs: 20, Outcome: properties.OutcomeOK}
		}
		if err := s.write(ops); err != nil {
			f.Fatal(err)
		}
		s.file.Flush()
		size, _ := s.file.File().Size()
		b := make([]byte, size)
		s.file.File().ReadAt(b, 0)
		return b
	}
	three := valid(3)
	f.Add(three)
	f.Add(three[:len(three)-5])
	f.Add(append(append([]byte{}, three...), three...))
	f.Add([]byte("{}\n"))
	f.Add([]byte("0 {}"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, content []byte) {
		s := historySpill{dir: t.TempDir()}
		defer s.close()
		if err := s.write(nil); err != nil { // makes the line file
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(content, []byte("\n")), []byte("\n"))
		for _, l := range lines {
			if err := s.file.Append(append(l, '\n')); err != nil {
				t.Fatal(err)
			}
		}
		s.scopes, s.perScope = []felix.Scope{{}}, []int{len(lines)} // as if n ops of the zero scope were written
		ops, err := s.read(0)
		if err != nil {
			return
		}
		if len(ops) != len(lines) {
			t.Fatalf("read %d operations from %d lines", len(ops), len(lines))
		}
		for i := range ops {
			if ops[i].ID != uint64(i+1) || ops[i].Validate() != nil {
				t.Fatalf("op %d read back as id %d (valid: %v)", i, ops[i].ID, ops[i].Validate())
			}
		}
	})
}

// TestScopeHistoryIsTheScopesPart: each scope's history, read back from a
// history mostly on disk, is exactly the operations of that scope in the
// history held whole (requests and delivered copies included), two scopes
// read together are both; a scope's read decodes no other scope's line
// (a line of another scope broken behind the recorder's back does not
// stop it, while it stops the whole read and that scope's), and a line
// under the wrong tag is refused.
func TestScopeHistoryIsTheScopesPart(t *testing.T) {
	held, c := runWorkloadWith(t, 11, 8*secondNs, lossyLink, Config{HeldOps: 1 << 20}, true)
	whole := mustHistory(t, held)
	c.Close()
	w, c := runWorkloadWith(t, 11, 8*secondNs, lossyLink, Config{HeldOps: spillTestHeldOps}, true)
	defer c.Close()
	scopes := w.Scopes()
	if len(scopes) < 4 || w.rec.spilled < w.OpsRecorded()/2 {
		t.Fatalf("%d scopes, %d of %d ops spilled: the test proves little", len(scopes), w.rec.spilled, w.OpsRecorded())
	}
	part := func(keep ...felix.Scope) *properties.History {
		out := &properties.History{}
		for _, op := range whole.Ops {
			if slices.Contains(keep, op.Scope) {
				out.Ops = append(out.Ops, op)
			}
		}
		return out
	}
	for _, s := range scopes {
		got, err := w.ScopeHistory([]felix.Scope{s})
		if err != nil {
			t.Fatal(err)
		}
		if encoded(t, got) != encoded(t, part(s)) || len(got.Ops) == 0 || w.ScopeOps(s) != len(got.Ops) {
			t.Fatalf("scope %s: %d ops read back (%d counted), not the %d of the whole history", s, len(got.Ops), w.ScopeOps(s), len(part(s).Ops))
		}
	}
	two, err := w.ScopeHistory(scopes[:2])
	if err != nil || encoded(t, two) != encoded(t, part(scopes[:2]...)) {
		t.Fatalf("two scopes read together: %v", err)
	}
	if w.LatestNs() != held.LatestNs() || w.LatestNs() < 8*secondNs-secondNs {
		t.Fatalf("latest op time %d spilled, %d held", w.LatestNs(), held.LatestNs())
	}
	// Break the JSON of the first spilled line (scope tag 0) behind the
	// recorder's back: other scopes still read, tag 0's scope does not.
	w.rec.spill.file.Flush()
	if _, err := w.rec.spill.file.File().(io.WriterAt).WriteAt([]byte("#"), 2); err != nil {
		t.Fatal(err)
	}
	broken := w.rec.spill.scopes[0]
	for _, s := range scopes {
		_, err := w.ScopeHistory([]felix.Scope{s})
		if (s == broken) != (err != nil) {
			t.Fatalf("scope %s after a line of %s broke: error %v", s, broken, err)
		}
	}
	if _, err := w.History(); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("whole history after line 1 broke: %v", err)
	}
	if _, err := w.rec.spill.file.File().(io.WriterAt).WriteAt([]byte(strconv.Itoa(len(scopes)+7)+" "), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ScopeHistory(scopes[1:2]); err == nil || !strings.Contains(err.Error(), "no scope tag") {
		t.Fatalf("a line under an unknown tag: %v", err)
	}
}
