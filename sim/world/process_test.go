package world_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
	"github.com/felixsim/felixsim/vfs"
)

func writeFile(t *testing.T, fs vfs.FS, name string, synced, unsynced []byte) {
	t.Helper()
	f, err := fs.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(synced); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := fs.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(unsynced); err != nil {
		t.Fatal(err)
	}
}

func TestKillLosesMemoryTimersAndUnsyncedWrites(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, nil)
	synced, unsynced := bytes.Repeat([]byte("A"), 100), bytes.Repeat([]byte("B"), 50)
	writeFile(t, p.Envs[1].FS(), "f", synced, unsynced)
	fired := false
	p.Envs[1].AfterNs(10_000_000, func() { fired = true })
	old := p.Envs[1]
	w.Kill(1, false, 5_000_000)
	if w.Up(1) || w.Process(1) != nil {
		t.Fatal("killed node still up")
	}
	got, err := vfs.ReadAll(w.Mem(1), "f")
	if err != nil || !bytes.Equal(got, synced) {
		t.Fatalf("after the crash the file holds %d bytes (%v), want exactly the %d synced", len(got), err, len(synced))
	}
	w.RunFor(20_000_000)
	if fired {
		t.Fatal("a timer of the killed incarnation fired")
	}
	if p.Boots[1] != 2 || p.Envs[1] == old || p.Envs[1].Incarnation() != 2 {
		t.Fatalf("restart after 5 ms: boots %d, incarnation %d", p.Boots[1], p.Envs[1].Incarnation())
	}
	if id := old.AfterNs(1, func() {}); id != 0 {
		t.Fatal("the dead incarnation's Env armed a timer")
	}
	old.Send(0, worldtest.ProbeMsg(1))
	w.RunFor(5_000_000)
	if len(p.Recv[0]) != 0 {
		t.Fatal("the dead incarnation's Env sent a message")
	}
}

func TestTornWriteLeavesPartialSectors(t *testing.T) {
	synced := bytes.Repeat([]byte("S"), 100)
	unsynced := bytes.Repeat([]byte("U"), 2000)
	full := append(append([]byte{}, synced...), unsynced...)
	partial := 0
	for seed := uint64(1); seed <= 20; seed++ {
		w, p := worldtest.ProbeWorld(t, seed, 1, worldtest.FixedLink, nil)
		writeFile(t, p.Envs[0].FS(), "f", synced, unsynced)
		w.Kill(0, true, 0)
		got, err := vfs.ReadAll(w.Mem(0), "f")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < len(synced) || !bytes.Equal(got, full[:len(got)]) {
			t.Fatalf("seed %d: torn file of %d bytes is not a prefix keeping the synced bytes", seed, len(got))
		}
		if len(got) != len(full) && len(got)%vfs.SectorBytes != 0 && len(got) != len(synced) {
			t.Fatalf("seed %d: torn at %d bytes, not at a sector boundary", seed, len(got))
		}
		if len(got) > len(synced) && len(got) < len(full) {
			partial++
		}
		w.Close()
	}
	if partial == 0 {
		t.Fatal("20 torn crashes never left a partial unsynced tail")
	}
}

func TestFsyncAndReadErrorsAreInjected(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 1, worldtest.FixedLink, nil)
	fs := p.Envs[0].FS()
	writeFile(t, fs, "f", []byte("durable"), []byte("volatile"))
	w.SetDiskFaults(0, 1_000_000, 1_000_000, 0)
	f, err := fs.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); !errors.Is(err, ErrInjected) {
		t.Fatalf("Sync with fsync errors at 1e6 ppm returned %v", err)
	}
	if _, err := f.ReadAt(make([]byte, 4), 0); !errors.Is(err, ErrInjected) {
		t.Fatalf("ReadAt with read errors at 1e6 ppm returned %v", err)
	}
	w.Kill(0, false, 0)
	if got, _ := vfs.ReadAll(w.Mem(0), "f"); string(got) != "durable" {
		t.Fatalf("a failed fsync made %q durable", got)
	}
	w.Heal()
	w.RunFor(0)
	f, err = p.Envs[0].FS().Open("f")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatalf("after Heal, Sync still fails: %v", err)
	}
}

func TestCorruptSectorFlipsOneBit(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 9, 1, worldtest.FixedLink, nil)
	clean := bytes.Repeat([]byte{0}, 4096)
	writeFile(t, p.Envs[0].FS(), "data", clean, nil)
	name, off, ok := w.CorruptSector(0)
	if !ok || name != "data" {
		t.Fatalf("CorruptSector hit %q, %v", name, ok)
	}
	f, err := p.Envs[0].FS().Open("data")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4096)
	if _, err := f.ReadAt(got, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	flipped := 0
	for i, b := range got {
		if b != 0 {
			flipped++
			if int64(i) != off || b&(b-1) != 0 {
				t.Fatalf("byte %d reads %08b; corruption reported at %d", i, b, off)
			}
		}
	}
	if flipped != 1 {
		t.Fatalf("%d bytes changed, want exactly one flipped bit", flipped)
	}
	w.Kill(0, false, 0)
	if again, _ := vfs.ReadAll(w.Mem(0), "data"); bytes.Equal(again, clean) {
		t.Fatal("the corruption vanished at a crash: it must hit the synced sector too")
	}
}

func TestDiskLatencyDelaysOutput(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 2, 2, worldtest.FixedLink, nil)
	fs := p.Envs[0].FS()
	writeFile(t, fs, "f", []byte("x"), nil)
	w.SetDiskFaults(0, 0, 0, 5_000_000)
	// Run the syncs inside node 0's handler, where latency is charged.
	p.Envs[0].AfterNs(0, func() {
		f, _ := fs.Open("f")
		for i := 0; i < 10; i++ {
			f.Sync()
		}
		p.Envs[0].Send(1, worldtest.ProbeMsg(1))
	})
	startNs := w.NowNs()
	w.RunFor(100_000_000)
	if len(p.Recv[1]) != 1 || p.Recv[1][0].AtNs <= startNs+1_000_000 {
		t.Fatalf("message after 10 slow syncs arrived at %v, want later than %d ns", p.Recv[1], startNs+1_000_000)
	}
}

func TestPausedNodeSendsNothingAndTimersWait(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, nil)
	var tick func()
	tick = func() { p.Envs[0].Send(1, worldtest.ProbeMsg(0)); p.Envs[0].AfterNs(1_000_000, tick) }
	p.Envs[0].AfterNs(1_000_000, tick)
	w.RunFor(10_000_000)
	before := len(p.Recv[1])
	w.Pause(0, 50_000_000)
	pauseNs := w.NowNs()
	w.RunFor(49_000_000)
	during := len(p.Recv[1]) - before
	w.RunFor(11_000_000)
	after := len(p.Recv[1]) - before - during
	// At most one message may still be in flight when the pause starts.
	if before < 8 || during > 1 || after < 8 {
		t.Fatalf("messages: %d before, %d during the 50 ms pause from %d ns, %d after", before, during, pauseNs, after)
	}
}

func TestClockFaultsMoveTimers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fault  func(w *World)
		wantNs int64
	}{
		{"none", func(*World) {}, 1_000_000_000},
		{"jump forward 500ms", func(w *World) { w.ClockJump(0, 500_000_000) }, 500_000_000},
		{"jump backward 500ms", func(w *World) { w.ClockJump(0, -500_000_000) }, 1_500_000_000},
		{"drift +25%", func(w *World) { w.ClockDrift(0, 250_000) }, 100_000_000 + 720_000_000},
	} {
		w, p := worldtest.ProbeWorld(t, 1, 1, worldtest.FixedLink, nil)
		firedNs := int64(-1)
		p.Envs[0].AfterNs(1_000_000_000, func() { firedNs = w.NowNs() })
		w.RunFor(100_000_000)
		tc.fault(w)
		w.RunFor(2_000_000_000)
		if firedNs != tc.wantNs {
			t.Fatalf("%s: a 1 s timer fired at %d ns, want %d", tc.name, firedNs, tc.wantNs)
		}
		w.Close()
	}
}

func TestClockSkewAndDriftRead(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, func(c *Config) {
		c.Nodes[1].ClockSkewNs = 7_000
		c.Nodes[1].ClockDriftPpm = -100_000
	})
	w.RunFor(1_000_000_000)
	if a, b := p.Envs[0].NowNs(), p.Envs[1].NowNs(); a != 1_000_000_000 || b != 7_000+900_000_000 {
		t.Fatalf("clocks read %d and %d at 1 s", a, b)
	}
}

func TestZeroDelayTimerLoopPanics(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 1, worldtest.FixedLink, nil)
	var spin func()
	spin = func() { p.Envs[0].AfterNs(0, spin) }
	p.Envs[0].AfterNs(0, spin)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "livelock") {
			t.Fatalf("a zero-delay timer loop did not panic as a livelock: %v", r)
		}
	}()
	w.RunFor(1)
}

// TestKillTearingUnsyncedStopsShortOfTheEnd: the crash after a failed
// write keeps a whole-sector prefix of the unsynced tail that ends at
// least FailedWriteGuardBytes before it (where a store's commit marker and
// its copy sit), and over draws it sometimes keeps part of the tail (a
// torn write) and sometimes none.
func TestKillTearingUnsyncedStopsShortOfTheEnd(t *testing.T) {
	const syncedBytes, tailBytes = 100, 5*512 + 40
	partial, none := false, false
	for seed := uint64(1); seed <= 20; seed++ {
		w, p := worldtest.ProbeWorld(t, seed, 1, worldtest.FixedLink, nil)
		f, err := p.Envs[0].FS().Create("log")
		if err != nil || p.Envs[0].FS().SyncDir(".") != nil {
			t.Fatalf("create: %v", err)
		}
		if _, err := f.Write(make([]byte, syncedBytes)); err != nil || f.Sync() != nil {
			t.Fatalf("write and sync: %v", err)
		}
		if _, err := f.Write(make([]byte, tailBytes)); err != nil {
			t.Fatal(err)
		}
		w.KillTearingUnsynced(0, 0)
		kept := MemSize(w.Mem(0), "log") - syncedBytes
		if guard := int64(syncedBytes + tailBytes - FailedWriteGuardBytes); kept < 0 || syncedBytes+kept > guard || (syncedBytes+kept)%512 != 0 && kept != 0 {
			t.Fatalf("seed %d: kept %d of %d unsynced bytes: past byte %d, or not at a sector end", seed, kept, tailBytes, guard)
		}
		partial, none = partial || kept > 0, none || kept == 0
		w.Close()
	}
	if !partial || !none {
		t.Fatalf("over 20 crashes: a partial tail kept %v, nothing kept %v; want both", partial, none)
	}
}
