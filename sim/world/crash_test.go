package world_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/simapi"
	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
	"github.com/felixsim/felixsim/vfs"
)

// committer is a test process: when node 0 tells it to, it makes seven
// disk-changing operations (create, write "a", sync, sync dir, write "b",
// write "c", sync; the syncs are no crash points, so the crash points are
// 1 create, 2 write a, 3 sync dir, 4 write b, 5 write c), then answers
// node 0 and arms a timer. swallow makes it
// recover any panic of its disk calls, as a careless broker might.
type committer struct {
	env     simapi.Env
	swallow bool
	after   *int // counts the runs that got past the last operation
}

func (c *committer) Boot(env simapi.Env) { c.env = env }

func (c *committer) Receive(from int, _ simapi.Message) {
	fs := c.env.FS()
	f, err := fs.Create("wal")
	if err != nil {
		return
	}
	steps := []func() error{
		func() error { _, err := f.Write([]byte("a")); return err },
		f.Sync,
		func() error { return fs.SyncDir(".") },
		func() error { _, err := f.Write([]byte("b")); return err },
		func() error { _, err := f.Write([]byte("c")); return err },
		f.Sync,
	}
	for _, step := range steps {
		if err := c.do(step); err != nil {
			return
		}
	}
	*c.after++
	c.env.Send(from, worldtest.ProbeMsg(9))
	c.env.AfterNs(1_000_000, func() { *c.after += 100 })
}

func (c *committer) do(step func() error) (err error) {
	if c.swallow {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("recovered %v", p)
			}
		}()
	}
	return step()
}

// committerWorld is node 0, a probe, and node 1, a committer.
func committerWorld(t *testing.T, swallow bool, after *int) (*World, *worldtest.Probes) {
	return worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, func(c *Config) {
		c.Nodes[1].New = func() simapi.Process { return &committer{swallow: swallow, after: after} }
	})
}

// TestCrashAtDiskOpLandsInsideTheCall: a crash armed at the k-th
// disk-changing operation kills the committer before that operation lands,
// inside the call: nothing after it runs (no answer, no timer), and the disk
// keeps the unsynced bytes as the model says. The expected files follow from
// the operation list alone.
func TestCrashAtDiskOpLandsInsideTheCall(t *testing.T) {
	for _, tc := range []struct {
		op    int64
		model CrashModel
		want  string // the file after the crash; "-" for no file
	}{
		{1, CrashKept, "-"},   // dies before the create
		{2, CrashKept, "-"},   // before writing a: the entry never synced
		{3, CrashKept, "-"},   // before the directory sync: likewise
		{4, CrashLost, "a"},   // before writing b
		{4, CrashKept, "a"},   // nothing unsynced yet
		{5, CrashKept, "ab"},  // before writing c: b written, not synced
		{5, CrashLost, "a"},   // ... and lost
		{6, CrashLost, "abc"}, // past the last crash point: no crash
		{2, CrashTorn, "-"},   // the entry was never synced: nothing to tear
		{5, CrashTorn, "ab?"}, // one sector holds the whole tail: all or none
	} {
		t.Run(fmt.Sprintf("op%d-%s", tc.op, tc.model), func(t *testing.T) {
			after := 0
			w, p := committerWorld(t, false, &after)
			w.CrashAtDiskOp(1, tc.op, tc.model, 50_000_000)
			p.Envs[0].Send(1, worldtest.ProbeMsg(1))
			w.RunFor(10_000_000)
			crashed := tc.op <= 5
			if w.Up(1) == crashed || (after != 0) == crashed || (len(p.Recv[0]) != 0) == crashed {
				t.Fatalf("crashed %v: up %v, ran past the crash point %d, answers %d", crashed, w.Up(1), after, len(p.Recv[0]))
			}
			got, err := vfs.ReadAll(w.Mem(1), "wal")
			switch {
			case tc.want == "-":
				if !errors.Is(err, vfs.ErrNotExist) {
					t.Fatalf("file holds %q (%v), want none", got, err)
				}
			case tc.want == "ab?":
				if err != nil || (string(got) != "a" && string(got) != "ab") {
					t.Fatalf("torn file holds %q (%v), want a or ab", got, err)
				}
			case err != nil || string(got) != tc.want:
				t.Fatalf("file holds %q (%v), want %q", got, err, tc.want)
			}
			if crashed && after != 0 {
				t.Fatal("the timer of the dead incarnation fired")
			}
			w.RunFor(100_000_000)
			if !w.Up(1) {
				t.Fatal("the node did not boot again after its restart delay")
			}
		})
	}
}

// TestCrashAtDiskOpCountsOnlyTheNodesOwnCalls: operations made on the
// node's disk outside its own calls (a checker, a test) do not count down
// the armed crash, and the heal disarms it.
func TestCrashAtDiskOpCountsOnlyTheNodesOwnCalls(t *testing.T) {
	after := 0
	w, p := committerWorld(t, false, &after)
	w.CrashAtDiskOp(1, 5, CrashKept, 0)
	writeFile(t, w.NodeFS(1), "other", []byte("x"), []byte("y")) // 4 crash points from outside
	p.Envs[0].Send(1, worldtest.ProbeMsg(1))
	w.RunFor(10_000_000)
	if w.Up(1) || after != 0 {
		t.Fatalf("the crash did not land at the committer's 5th crash point: up %v, after %d", w.Up(1), after)
	}
	w.Heal()
	w.RunFor(10_000_000)
	p.Envs[0].Send(1, worldtest.ProbeMsg(1))
	w.CrashAtDiskOp(1, 1, CrashKept, 0)
	w.Heal()
	w.RunFor(10_000_000)
	if !w.Up(1) || after != 101 {
		t.Fatalf("after the heal disarmed it: up %v, after %d", w.Up(1), after)
	}
}

// TestCrashSwallowedIsAPanic: a process that recovers the crash's
// unwinding would run on past its death; the world refuses that loudly.
func TestCrashSwallowedIsAPanic(t *testing.T) {
	after := 0
	w, p := committerWorld(t, true, &after)
	w.CrashAtDiskOp(1, 5, CrashKept, 0)
	p.Envs[0].Send(1, worldtest.ProbeMsg(1))
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		w.RunFor(10_000_000)
		return ""
	}()
	if !strings.Contains(msg, "something recovered the crash") {
		t.Fatalf("a swallowed crash passed: %q", msg)
	}
}

// panicker panics with its own value when told to.
type panicker struct{}

func (panicker) Boot(simapi.Env)             {}
func (panicker) Receive(int, simapi.Message) { panic("boom") }

// TestOtherPanicsPassThrough: with a crash armed, a process's own panic
// still reaches the caller unchanged (the runner reports it as a crash of
// the system under test).
func TestOtherPanicsPassThrough(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, func(c *Config) {
		c.Nodes[1].New = func() simapi.Process { return panicker{} }
	})
	w.CrashAtDiskOp(1, 1, CrashKept, 0)
	p.Envs[0].Send(1, worldtest.ProbeMsg(1))
	got := func() (v any) {
		defer func() { v = recover() }()
		w.RunFor(10_000_000)
		return nil
	}()
	if got != "boom" {
		t.Fatalf("panic value %v, want boom", got)
	}
}
