package runner

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/vfs"
)

// TestLedgerSinkReadsBack: a sink whose steps wait on disk gives the
// ledger the trace shows, stated here by hand: proposals and commands in
// trace order, each numbered among its kind; a command applied where it
// was first applied after its proposal (a re-proposal of its digest
// taking the next apply); a record landed once however many brokers
// applied it, with every broker (as clients name them), numbered by its
// first apply. A shard group's part holds exactly that group's steps and
// every relay command (its request ids name no scope), with the same
// numbers, and is refused (judge whole) when a record landed in it under
// a digest none of its proposals carries, or a command was applied in
// another group than its proposal's. The sink holds its steps in memory,
// or 3 of them (the rest written to its file and read back).
func TestLedgerSinkReadsBack(t *testing.T) {
	for _, held := range []int{ledgerHeldMax, 3} { // all in memory, or most on disk
		checkLedgerSink(t, held)
	}
}

// checkLedgerSink is TestLedgerSinkReadsBack with a sink holding held steps.
func checkLedgerSink(t *testing.T, held int) {
	streams := []node.StreamSpec{{Namespace: "n", Stream: "s", Shards: 2}}
	g0, g1 := node.RaftGroupOf(streams, "n", "s", 0), node.RaftGroupOf(streams, "n", "s", 1)
	clientOf := func(simID uint64) (int, bool) {
		if simID == 5 {
			return properties.LedgerRelayClient, true
		}
		return int(simID) - 10, simID >= 10
	}
	s := NewLedgerSink()
	s.spill.heldMax = held
	defer s.Close()
	write := &modeltrace.Write{Tenant: "acme", Kind: modeltrace.KindCommit}
	fetch := &modeltrace.Write{Tenant: "globex", Kind: modeltrace.KindFetch}
	trim := &modeltrace.Write{Tenant: "acme", Kind: modeltrace.KindOutboxTrim}
	steps := []modeltrace.Step{
		{Kind: modeltrace.Request, Broker: 1, Client: 10, ReqID: 1, Group: g0, Digest: 100, Asked: write},
		{Kind: modeltrace.Request, Broker: 2, Client: 11, ReqID: 7, Group: g1, Digest: 200, Asked: fetch},
		{Kind: modeltrace.Apply, Broker: 1, Group: g0, Digest: 100, Outcome: modeltrace.OutcomeWritten, Offset: 5},
		{Kind: modeltrace.Request, Broker: 2, Client: 12, ReqID: 3, Group: g1, Digest: 300, Asked: write},
		{Kind: modeltrace.Apply, Broker: 2, Group: g1, Digest: 200, Index: 40, Outcome: modeltrace.OutcomeError},
		{Kind: modeltrace.Apply, Broker: 3, Group: g1, Digest: 200, Index: 41}, // a later apply: not the first
		{Kind: modeltrace.Apply, Broker: 3, Group: g0, Digest: 100, Outcome: modeltrace.OutcomeWritten, Offset: 5},
		{Kind: modeltrace.Request, Broker: 2, Client: 11, ReqID: 8, Group: g1, Digest: 201, Asked: fetch},
		{Kind: modeltrace.Request, Broker: 2, Client: 11, ReqID: 8, Group: g1, Digest: 201, Asked: fetch}, // re-proposed
		{Kind: modeltrace.Apply, Broker: 1, Group: g1, Digest: 201, Index: 44},
		{Kind: modeltrace.Apply, Broker: 2, Group: g1, Digest: 300, Outcome: modeltrace.OutcomeWritten, Offset: 0},
		{Kind: modeltrace.Apply, Broker: 1, Group: g0, Digest: 100, Outcome: modeltrace.OutcomeWritten, Offset: 5},
		{Kind: modeltrace.Request, Broker: 3, Client: 5, ReqID: 4, Group: g0, Digest: 400, Asked: trim},
		{Kind: modeltrace.Apply, Broker: 3, Group: g0, Digest: 400, Index: 9},
	}
	for i := range steps {
		s.Step(&steps[i])
	}
	if made := s.spill.file != nil && s.spill.file.Made(); (held < len(steps)) != made {
		t.Fatalf("holding %d of %d steps: a file %v", held, len(steps), made)
	}
	sc0, sc1 := shardsOf(streams)[g0], shardsOf(streams)[g1]
	sc0.Tenant, sc1.Tenant = "acme", "acme"
	fsc := sc1
	fsc.Tenant = "globex"
	want := &properties.Ledger{
		Proposals: []properties.LedgerProposal{{Broker: 1, Client: 0, Request: 1, Scope: sc0, Digest: 100, Seq: 0},
			{Broker: 2, Client: 2, Request: 3, Scope: sc1, Digest: 300, Seq: 1}},
		Commands: []properties.LedgerProposal{{Broker: 2, Client: 1, Request: 7, Scope: fsc, Digest: 200, AppliedIndex: 40, AppliedError: true, Seq: 0},
			{Broker: 2, Client: 1, Request: 8, Scope: fsc, Digest: 201, Seq: 1},
			{Broker: 2, Client: 1, Request: 8, Scope: fsc, Digest: 201, AppliedIndex: 44, Seq: 2},
			{Broker: 3, Client: properties.LedgerRelayClient, Request: 4, Scope: sc0, Digest: 400, AppliedIndex: 9, Seq: 3}},
		Landings: []properties.LedgerLanding{{Digest: 100, Shard: shardsOf(streams)[g0], Offset: 5, Brokers: []uint64{1, 3}, Seq: 0},
			{Digest: 300, Shard: shardsOf(streams)[g1], Offset: 0, Brokers: []uint64{2}, Seq: 2}},
	}
	got, err := s.Ledger(streams, clientOf)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("holding %d: ledger (%v):\n%+v\nwant\n%+v", held, err, got, want)
	}
	part, ok, err := s.GroupLedger([]uint64{g1}, streams, clientOf)
	wantPart := &properties.Ledger{Proposals: want.Proposals[1:], Commands: want.Commands, Landings: want.Landings[1:]}
	if err != nil || !ok || !reflect.DeepEqual(part, wantPart) {
		t.Fatalf("group %d's ledger (ok %v, %v):\n%+v\nwant\n%+v", g1, ok, err, part, wantPart)
	}
	s.Step(&modeltrace.Step{Kind: modeltrace.Apply, Broker: 2, Group: g1, Digest: 100, Outcome: modeltrace.OutcomeWritten, Offset: 9})
	if _, ok, err := s.GroupLedger([]uint64{g1}, streams, clientOf); ok || err != nil {
		t.Fatalf("a record landed in group %d under group %d's digest: ok %v, %v", g1, g0, ok, err)
	}
	if _, ok, _ := s.GroupLedger([]uint64{g0}, streams, clientOf); ok != true {
		t.Fatalf("group %d's own ledger refused", g0)
	}
	s.Step(&modeltrace.Step{Kind: modeltrace.Request, Broker: 2, Client: 11, ReqID: 9, Group: g1, Digest: 202, Asked: fetch})
	s.Step(&modeltrace.Step{Kind: modeltrace.Apply, Broker: 1, Group: g0, Digest: 202, Index: 3})
	if _, ok, _ := s.GroupLedger([]uint64{g0}, streams, clientOf); ok {
		t.Fatal("a command applied in another group than its proposal's: the group's ledger was not refused")
	}
}

// TestLedgerSinkLostIsAnError: a sink that cannot keep its steps (past
// what it holds in memory, its scratch directory gone) gives no ledger,
// but an error naming why.
func TestLedgerSinkLostIsAnError(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	s := NewLedgerSink()
	for i := 0; i <= ledgerHeldMax; i++ { // one more than it holds: it writes
		s.Step(&modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Client: 10, ReqID: uint64(i), Group: 2, Digest: uint64(i), Asked: &modeltrace.Write{Tenant: "t", Kind: modeltrace.KindCommit}})
	}
	if _, err := s.Ledger(nil, func(uint64) (int, bool) { return 0, true }); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("a ledger that could not be kept: %v", err)
	}
}

// TestLedgerSpillCutOrAddedIsAnError: a ledger file cut short at a line
// boundary, or given a well-formed line behind the sink's back, reads
// back as an error naming the count, never as a ledger of part of the
// run's steps (which would judge proposals and landings as missing or
// extra). Without the count check both read back without an error.
func TestLedgerSpillCutOrAddedIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name      string
		breakFile func(s *LedgerSink, size int64) error
		want      string
	}{
		{"cut a line short", func(s *LedgerSink, size int64) error {
			b := make([]byte, size)
			if _, err := s.spill.file.File().ReadAt(b, 0); err != nil {
				return err
			}
			return s.spill.file.File().Truncate(int64(bytes.LastIndexByte(b[:size-1], '\n') + 1)) // the last line gone
		}, "holds 8 lines, 9 were written"},
		{"a line added", func(s *LedgerSink, _ int64) error {
			_, err := s.spill.file.File().Write([]byte("2 P 9 1 10 9 9 \"t\"\n"))
			return err
		}, "line 10: past the 9 lines written"},
	} {
		s := NewLedgerSink()
		s.spill.heldMax = 3
		for i := 0; i < 10; i++ { // 9 written to the file, 1 held
			s.Step(&modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Client: 10, ReqID: uint64(i), Group: 2, Digest: uint64(i), Asked: &modeltrace.Write{Tenant: "t", Kind: modeltrace.KindCommit}})
		}
		if s.spill.file.Lines() != 9 {
			t.Fatalf("%s: %d steps written, want 9: the test proves little", tc.name, s.spill.file.Lines())
		}
		clientOf := func(uint64) (int, bool) { return 0, true }
		if _, err := s.Ledger(nil, clientOf); err != nil {
			t.Fatalf("%s: the file as written: %v", tc.name, err)
		}
		if err := s.spill.file.Flush(); err != nil {
			t.Fatal(err)
		}
		size, _ := s.spill.file.File().Size()
		if err := tc.breakFile(s, size); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Ledger(nil, clientOf); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: ledger error %v, want one saying %q", tc.name, err, tc.want)
		}
		s.Close()
	}
}

// FuzzLedgerSpillRead: whatever lines a ledger's file holds, reading it
// back gives a ledger or an error, never a panic; a ledger read back
// holds at most one proposal or command a line. (The file's line count
// against what was written is vfs.LineFile's, tested there.)
func FuzzLedgerSpillRead(f *testing.F) {
	for _, seed := range []string{
		"2 P 0 1 10 1 100 \"acme\"\n2 C 0 2 11 7 200 \"globex\"\n2 A 0 40 1\n2 L 0 100 5 1",
		"2 A 0 40 1",                             // an apply before its command
		"2 P 0 1 10 1 100 acme",                  // an unquoted tenant
		"2 X 0",                                  // an unknown kind
		"2 L 0 100 5",                            // a field short
		"18446744073709551616 P 0 1 1 1 1 \"t\"", // a group past uint64
		"", "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		s := ledgerSpill{file: vfs.NewLineFile("ledger spill", t.TempDir(), "ledger-*.txt", 1<<10, ledgerLineLenMax), heldMax: 1}
		defer s.close()
		lines := bytes.Split(content, []byte("\n"))
		for _, l := range lines {
			if err := s.file.Append(append(l, '\n')); err != nil {
				t.Fatal(err)
			}
		}
		k, err := s.read(func(uint64) bool { return true }, nil)
		if err != nil {
			return
		}
		if len(k.proposals)+len(k.commands) > len(lines) {
			t.Fatalf("%d proposals and commands from %d lines", len(k.proposals)+len(k.commands), len(lines))
		}
	})
}
