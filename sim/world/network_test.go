package world_test

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

func TestLossReallyLoses(t *testing.T) {
	for _, tc := range []struct {
		lossPpm int64
		want    int
	}{{0, 100}, {1_000_000, 0}} {
		link := worldtest.FixedLink
		link.LossPpm = tc.lossPpm
		w, p := worldtest.ProbeWorld(t, 1, 2, link, nil)
		for i := 0; i < 100; i++ {
			p.Envs[0].Send(1, worldtest.ProbeMsg(i))
		}
		w.RunFor(10_000_000)
		if got := len(p.Recv[1]); got != tc.want {
			t.Fatalf("loss %d ppm: %d of 100 delivered, want %d", tc.lossPpm, got, tc.want)
		}
		w.Close()
	}
}

func TestDuplicateDeliversClones(t *testing.T) {
	link := worldtest.FixedLink
	link.DuplicatePpm = 1_000_000
	w, p := worldtest.ProbeWorld(t, 1, 2, link, nil)
	sent := &worldtest.BoxMsg{N: 5}
	p.Envs[0].Send(1, sent)
	p.Envs[0].Send(1, worldtest.ProbeMsg(9))
	w.RunFor(10_000_000)
	if len(p.Recv[1]) != 4 {
		t.Fatalf("got %d deliveries of 2 duplicated messages, want 4", len(p.Recv[1]))
	}
	var boxes []*worldtest.BoxMsg
	for _, r := range p.Recv[1] {
		if b, ok := r.Msg.(*worldtest.BoxMsg); ok {
			boxes = append(boxes, b)
		}
	}
	if len(boxes) != 2 || boxes[0] == boxes[1] || *boxes[0] != *boxes[1] {
		t.Fatalf("mutable message not delivered as an equal clone: %v", boxes)
	}
}

func TestReorderReallyReorders(t *testing.T) {
	for _, reorderPpm := range []int64{0, 500_000} {
		link := worldtest.FixedLink
		link.ReorderPpm, link.ReorderDelayMaxNs = reorderPpm, 10_000_000
		w, p := worldtest.ProbeWorld(t, 3, 2, link, nil)
		for i := 0; i < 50; i++ {
			p.Envs[0].Send(1, worldtest.ProbeMsg(i))
		}
		w.RunFor(20_000_000)
		inOrder := true
		for i, r := range p.Recv[1] {
			if r.Msg != worldtest.ProbeMsg(i) {
				inOrder = false
			}
		}
		if len(p.Recv[1]) != 50 || inOrder != (reorderPpm == 0) {
			t.Fatalf("reorder %d ppm: %d delivered, in order %v", reorderPpm, len(p.Recv[1]), inOrder)
		}
		w.Close()
	}
}

func TestLatencyWithinBounds(t *testing.T) {
	link := LinkConfig{LatencyMinNs: 2_000_000, LatencyMaxNs: 5_000_000}
	w, p := worldtest.ProbeWorld(t, 4, 2, link, nil)
	for i := 0; i < 100; i++ {
		p.Envs[0].Send(1, worldtest.ProbeMsg(i))
	}
	w.RunFor(10_000_000)
	lo, hi := int64(1<<62), int64(0)
	for _, r := range p.Recv[1] {
		lo, hi = min(lo, r.AtNs), max(hi, r.AtNs)
	}
	if len(p.Recv[1]) != 100 || lo < 2_000_000 || hi > 5_000_000 || hi == lo {
		t.Fatalf("latencies span [%d, %d] ns over %d messages, want spread within [2e6, 5e6]", lo, hi, len(p.Recv[1]))
	}
}

func TestPartitionsReallyCut(t *testing.T) {
	all := "1>0 2>0 3>0 0>1 2>1 3>1 0>2 1>2 3>2 0>3 1>3 2>3 "
	for _, tc := range []struct {
		name string
		cut  func(w *World)
		want string
	}{
		{"symmetric 0-1", func(w *World) { w.Partition(0, 1) }, "2>0 3>0 2>1 3>1 0>2 1>2 3>2 0>3 1>3 2>3 "},
		{"one-way 0->1", func(w *World) { w.Block(0, 1) }, "1>0 2>0 3>0 2>1 3>1 0>2 1>2 3>2 0>3 1>3 2>3 "},
		{"isolate 2", func(w *World) { w.Isolate(2) }, "1>0 3>0 0>1 3>1 0>3 1>3 "},
		{"split {0,1}|{2,3}", func(w *World) { w.Split(0b0011) }, "1>0 0>1 3>2 2>3 "},
		{"bridge 3 over {0}|{1,2}", func(w *World) { w.Bridge(3, 0b0001) }, "3>0 2>1 3>1 1>2 3>2 0>3 1>3 2>3 "},
	} {
		w, p := worldtest.ProbeWorld(t, 1, 4, worldtest.FixedLink, nil)
		if got := p.Reach(); got != all {
			t.Fatalf("%s: before the cut %q", tc.name, got)
		}
		tc.cut(w)
		if got := p.Reach(); got != tc.want {
			t.Fatalf("%s: reachability %q, want %q", tc.name, got, tc.want)
		}
		w.HealNetwork()
		if got := p.Reach(); got != all {
			t.Fatalf("%s: after heal %q", tc.name, got)
		}
		w.Close()
	}
}

func TestDeadNodeDropsPausedNodeWaits(t *testing.T) {
	w, p := worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, nil)
	w.Kill(1, false, 0)
	p.Envs[0].Send(1, worldtest.ProbeMsg(1))
	w.RunFor(5_000_000)
	if len(p.Recv[1]) != 0 {
		t.Fatalf("a dead node received %v", p.Recv[1])
	}
	w.Restart(1)
	w.RunFor(0)
	w.Pause(1, 0)
	p.Envs[0].Send(1, worldtest.ProbeMsg(2))
	p.Envs[0].Send(1, worldtest.ProbeMsg(3))
	w.RunFor(50_000_000)
	if len(p.Recv[1]) != 0 {
		t.Fatalf("a paused node received %v", p.Recv[1])
	}
	resumeNs := w.NowNs()
	w.Resume(1)
	w.RunFor(0)
	if len(p.Recv[1]) != 2 || p.Recv[1][0].Msg != worldtest.ProbeMsg(2) || p.Recv[1][1].Msg != worldtest.ProbeMsg(3) || p.Recv[1][0].AtNs != resumeNs {
		t.Fatalf("after resume at %d ns the held messages arrived as %v", resumeNs, p.Recv[1])
	}
}

func TestLatencyTailIsSlow(t *testing.T) {
	link := LinkConfig{LatencyMinNs: 1_000_000, LatencyMaxNs: 2_000_000, LatencyTailPpm: 300_000, LatencyTailMaxNs: 50_000_000}
	w, p := worldtest.ProbeWorld(t, 4, 2, link, nil)
	for i := 0; i < 200; i++ {
		p.Envs[0].Send(1, worldtest.ProbeMsg(i))
	}
	w.RunFor(60_000_000)
	slow := 0
	for _, r := range p.Recv[1] {
		if r.AtNs > 2_000_000 {
			slow++
		}
		if r.AtNs > 50_000_000 || r.AtNs < 1_000_000 {
			t.Fatalf("latency %d ns outside [1e6, 5e7]", r.AtNs)
		}
	}
	if len(p.Recv[1]) != 200 || slow < 30 || slow > 90 {
		t.Fatalf("%d of %d messages took the 30%% tail", slow, len(p.Recv[1]))
	}
}

// TestCutPeersAndCutExemptSplitTheLinkClasses: with node 2 fault-exempt (a
// client), CutPeers(0) cuts 0<->1 and keeps 0<->2, CutExempt(0) the other
// way round, each both ways, and the links return after the delay.
func TestCutPeersAndCutExemptSplitTheLinkClasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(w *World)
		// open[i] says whether 0<->i passes while the cut holds.
		open [3]bool
	}{
		{"peers", func(w *World) { w.CutPeers(0, 50_000_000) }, [3]bool{true, false, true}},
		{"exempt", func(w *World) { w.CutExempt(0, 50_000_000) }, [3]bool{true, true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, p := worldtest.ProbeWorld(t, 1, 3, worldtest.FixedLink, func(c *Config) { c.Nodes[2].FaultExempt = true })
			tc.cut(w)
			exchange := func() [3]int {
				for _, o := range []int{1, 2} {
					p.Envs[0].Send(o, worldtest.ProbeMsg(o))
					p.Envs[o].Send(0, worldtest.ProbeMsg(o))
				}
				w.RunFor(5_000_000)
				return [3]int{0, p.CountFrom(1, 0) + p.CountFrom(0, 1), p.CountFrom(2, 0) + p.CountFrom(0, 2)}
			}
			got := exchange()
			for o := 1; o <= 2; o++ {
				if want := map[bool]int{true: 2, false: 0}[tc.open[o]]; got[o] != want {
					t.Fatalf("while cut: %d of 2 messages passed between 0 and %d, want %d", got[o], o, want)
				}
			}
			w.RunFor(50_000_000)
			after := exchange()
			for o := 1; o <= 2; o++ {
				if after[o]-got[o] != 2 {
					t.Fatalf("after the delay: %d of 2 messages passed between 0 and %d", after[o]-got[o], o)
				}
			}
		})
	}
}

// TestRemovingAMessageMovesNoOtherMessage: a message's fate (lost, its
// latency, duplicated, delayed out of order) is drawn from its own link's
// stream keyed by its send instant, so a run without one early message
// delivers every other message, on its link and on the others, at the
// same times with the same copies. With one random stream for the whole
// network, every later message's draws would shift (as they did before
// the keyed streams): this is what lets a shrunk plan keep its timing.
func TestRemovingAMessageMovesNoOtherMessage(t *testing.T) {
	link := LinkConfig{LatencyMinNs: 1_000_000, LatencyMaxNs: 40_000_000, LossPpm: 200_000,
		DuplicatePpm: 300_000, ReorderPpm: 300_000, ReorderDelayMaxNs: 20_000_000}
	type send struct {
		atNs     int64
		from, to int
	}
	var sends []send
	for i := 0; i < 60; i++ {
		sends = append(sends, send{atNs: int64(i/3) * 3_000_000, from: i % 3, to: (i + 1 + i/3%2) % 3})
	}
	const removed = 4 // node 1 -> 0 at 3 ms: the link's first message, alone at its instant
	deliveries := func(skip int) map[worldtest.ProbeMsg]string {
		w, p := worldtest.ProbeWorld(t, 77, 3, link, nil)
		for i, s := range sends {
			if i != skip {
				w.At(s.atNs, uint64(i), func() { p.Envs[s.from].Send(s.to, worldtest.ProbeMsg(i)) })
			}
		}
		w.RunFor(1_000_000_000)
		out := map[worldtest.ProbeMsg]string{}
		for to, rs := range p.Recv {
			for _, r := range rs {
				m := r.Msg.(worldtest.ProbeMsg)
				out[m] += fmt.Sprintf("%d->%d@%d ", r.From, to, r.AtNs)
			}
		}
		w.Close()
		return out
	}
	full, without := deliveries(-1), deliveries(removed)
	if full[removed] == "" || without[removed] != "" {
		t.Fatalf("message %d: %q in the full run, %q in the run without it", removed, full[removed], without[removed])
	}
	lost, dup := 0, 0
	for i := range sends {
		m := worldtest.ProbeMsg(i)
		switch {
		case i == removed:
		case full[m] != without[m]:
			t.Errorf("message %d (%d->%d at %d ns): %q with message %d, %q without it", i, sends[i].from, sends[i].to, sends[i].atNs, full[m], removed, without[m])
		case full[m] == "":
			lost++
		case strings.Count(full[m], "@") == 2:
			dup++
		}
	}
	if lost == 0 || dup == 0 {
		t.Fatalf("the links lost %d and duplicated %d of %d messages; the test needs both", lost, dup, len(sends))
	}
}
