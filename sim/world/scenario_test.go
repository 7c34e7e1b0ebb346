package world_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing" // Datadriven scenario tests: each file under testdata/scenarios opens with a

	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of scenario files")

// scenario is the state one scenario file's commands share.
type scenario struct {
	t      *testing.T
	w      *World
	p      *worldtest.Probes
	traced int // trace events already printed
}

type scenarioCase struct {
	cmd    string
	args   map[string]string
	pos    []string
	output string
}

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runScenarioFile(t, file) })
	}
}

func runScenarioFile(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(raw), "\n\n")
	s := &scenario{t: t}
	defer func() {
		if s.w != nil {
			s.w.Close()
		}
	}()
	var out []string
	for i, block := range blocks {
		cmdLine, want, isCase := strings.Cut(block, "\n----\n")
		if !isCase {
			cmdLine, _, isCase = strings.Cut(block, "\n----")
		}
		if !isCase || strings.HasPrefix(block, "#") {
			out = append(out, block)
			continue
		}
		got := s.run(strings.TrimSpace(cmdLine))
		if *rewrite {
			out = append(out, cmdLine+"\n----\n"+got)
			continue
		}
		if strings.TrimRight(want, "\n") != strings.TrimRight(got, "\n") {
			t.Fatalf("%s block %d: %s\ngot:\n%s\nwant:\n%s", file, i, cmdLine, got, want)
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(strings.TrimRight(strings.Join(out, "\n\n"), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *scenario) run(line string) string {
	fields := strings.Fields(line)
	c := scenarioCase{cmd: fields[0], args: map[string]string{}}
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			c.args[k] = v
		} else {
			c.pos = append(c.pos, f)
		}
	}
	if c.cmd != "world" && s.w == nil {
		s.t.Fatalf("%q before a world command", line)
	}
	switch c.cmd {
	case "world":
		return s.cmdWorld(c)
	case "send":
		return s.cmdSend(c)
	case "run":
		s.w.RunFor(s.num(c.pos[0]))
		return s.cmdTrace()
	case "net":
		return s.cmdNet(c)
	case "node":
		return s.cmdNode(c)
	case "clock":
		return s.cmdClock(c)
	case "timer":
		id := s.int(c.pos[0])
		p, w := s.p, s.w
		p.Envs[id].AfterNs(s.num(c.pos[1]), func() { p.Envs[id].Trace("timer", uint64(w.NowNs())) })
		return "ok"
	}
	s.t.Fatalf("unknown scenario command %q", c.cmd)
	return ""
}

// num parses an integer with an optional ns/us/ms/s suffix, in ns.
func (s *scenario) num(v string) int64 {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		s.t.Fatalf("bad number %q: %v", v, err)
	}
	return n * mult
}

func (s *scenario) int(v string) int { return int(s.num(v)) }

func (s *scenario) cmdWorld(c scenarioCase) string {
	link := LinkConfig{LatencyMinNs: s.num(c.args["latency"]), LatencyMaxNs: s.num(c.args["latency"])}
	if v, ok := c.args["loss"]; ok {
		link.LossPpm = s.num(v)
	}
	if v, ok := c.args["dup"]; ok {
		link.DuplicatePpm = s.num(v)
	}
	s.w, s.p = worldtest.ProbeWorld(s.t, uint64(s.num(c.args["seed"])), s.int(c.args["nodes"]), link, nil)
	return s.cmdTrace()
}

func (s *scenario) cmdSend(c scenarioCase) string {
	from, to, n := s.int(c.pos[0]), s.int(c.pos[1]), s.int(c.pos[2])
	for i := 0; i < n; i++ {
		s.p.Envs[from].Send(to, worldtest.ProbeMsg(i))
	}
	return s.cmdTrace()
}

func (s *scenario) cmdNet(c scenarioCase) string {
	w := s.w
	switch c.pos[0] {
	case "partition":
		w.Partition(s.int(c.pos[1]), s.int(c.pos[2]))
	case "block":
		w.Block(s.int(c.pos[1]), s.int(c.pos[2]))
	case "isolate":
		w.Isolate(s.int(c.pos[1]))
	case "heal":
		w.HealNetwork()
	default:
		s.t.Fatalf("unknown net command %q", c.pos[0])
	}
	return "ok"
}

func (s *scenario) cmdNode(c scenarioCase) string {
	w, id := s.w, s.int(c.pos[1])
	switch c.pos[0] {
	case "kill":
		restartNs := int64(0)
		if v, ok := c.args["restart"]; ok {
			restartNs = s.num(v)
		}
		w.Kill(id, c.args["torn"] == "true", restartNs)
	case "pause":
		w.Pause(id, 0)
	case "resume":
		w.Resume(id)
	case "restart":
		w.Restart(id)
	default:
		s.t.Fatalf("unknown node command %q", c.pos[0])
	}
	return s.cmdTrace()
}

func (s *scenario) cmdClock(c scenarioCase) string {
	id := s.int(c.pos[1])
	switch c.pos[0] {
	case "jump":
		s.w.ClockJump(id, s.num(c.pos[2]))
	case "drift":
		if err := s.w.ClockDrift(id, s.num(c.pos[2])); err != nil {
			return err.Error()
		}
	}
	return fmt.Sprintf("node %d reads %d ns at %d ns", id, s.w.LocalNowNs(id), s.w.NowNs())
}

// cmdTrace prints the trace events executed since the last print.
func (s *scenario) cmdTrace() string {
	events, _ := s.w.Trace()
	var lines []string
	for _, e := range events[s.traced:] {
		line := fmt.Sprintf("%d %s node=%d peer=%d", e.AtNs, e.Kind, e.Node, e.Peer)
		if e.Kind == EvDrop {
			line += " reason=" + DropReason(e)
		}
		lines = append(lines, line)
	}
	s.traced = len(events)
	if len(lines) == 0 {
		return "(nothing happened)"
	}
	if len(lines) > 40 {
		lines = append(lines[:40], fmt.Sprintf("... %d more", len(lines)-40))
	}
	return strings.Join(lines, "\n")
}
