package scenario

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/world"
)

// brokerArg resolves the single broker a fault command names.
func (r *Runner) brokerArg(a *args, usage string) (*cluster.Cluster, uint64, error) {
	p := a.positional(1, 1, usage)
	if p == nil {
		return nil, 0, nil
	}
	return r.clusterBroker(p[0])
}

// clusterBroker returns the cluster and the broker arg names (see broker).
func (r *Runner) clusterBroker(arg string) (*cluster.Cluster, uint64, error) {
	c, err := r.cluster()
	if err != nil {
		return nil, 0, err
	}
	id, err := r.broker(arg)
	return c, id, err
}

// cmdKill: kill N: the broker stops, losing what it had not synced; it
// stays down until restart.
func (r *Runner) cmdKill(a *args) (string, error) {
	c, id, err := r.brokerArg(a, "kill N|leader:STREAM/SHARD")
	if c == nil || err != nil {
		return "", err
	}
	c.World.Kill(cluster.SimID(id), false, 0)
	return fmt.Sprintf("broker %d down", id), nil
}

// cmdDiskTear: disk tear N: the broker stops and its unsynced file tails
// survive in part, cut at sector granularity; it stays down until restart.
func (r *Runner) cmdDiskTear(a *args) (string, error) {
	c, id, err := r.brokerArg(a, "disk tear N")
	if c == nil || err != nil {
		return "", err
	}
	c.World.Kill(cluster.SimID(id), true, 0)
	return fmt.Sprintf("broker %d down, unsynced tails torn", id), nil
}

// DiskOpsMax bounds how far ahead a crash may be armed.
const DiskOpsMax = 1 << 20

// cmdCrash: crash N at op K [--model lost|torn|kept] arms broker N to die
// before its K-th disk operation from now (1: the next) that changes the
// disk: a write, truncate, create, remove, rename or directory sync, never
// a file sync (world.World.CrashAtDiskOp says why). The crash lands inside
// whatever the broker is doing, a store commit half written; the disk
// keeps the unsynced bytes as the model says (default lost). The broker
// stays down until restart or heal; arming again replaces the crash.
func (r *Runner) cmdCrash(a *args) (string, error) {
	model := world.CrashLost
	if s, ok := a.flag("model"); ok {
		m, err := world.ParseCrashModel(s)
		if err != nil {
			return "", err
		}
		model = m
	}
	usage := "crash N at op K [--model lost|torn|kept]"
	p := a.positional(4, 4, usage)
	if p == nil {
		return "", nil
	}
	if p[1] != "at" || p[2] != "op" {
		return "", fmt.Errorf("crash refused: want %q (K counts the broker's disk operations that change the disk; a file sync is never a crash point)", usage)
	}
	k, err := parseUint("disk operation", p[3])
	if err != nil || k < 1 || k > DiskOpsMax {
		return "", fmt.Errorf("crash refused: disk operation %q: want 1..%d", p[3], DiskOpsMax)
	}
	c, id, err := r.clusterBroker(p[0])
	if err != nil {
		return "", err
	}
	if !c.World.Up(cluster.SimID(id)) {
		return "", fmt.Errorf("crash %d refused: broker %d is down", id, id)
	}
	c.World.CrashAtDiskOp(cluster.SimID(id), int64(k), model, 0)
	return fmt.Sprintf("broker %d dies before its disk operation %d from now (%s)", id, k, model), nil
}

// cmdRestart: restart N boots a down broker now.
func (r *Runner) cmdRestart(a *args) (string, error) {
	c, id, err := r.brokerArg(a, "restart N")
	if c == nil || err != nil {
		return "", err
	}
	if c.World.Up(cluster.SimID(id)) {
		return "", fmt.Errorf("restart %d refused: broker %d is not down", id, id)
	}
	c.World.Restart(cluster.SimID(id))
	return fmt.Sprintf("broker %d booting", id), nil
}

// cmdPause: pause N freezes the broker; what it is sent waits.
func (r *Runner) cmdPause(a *args) (string, error) {
	c, id, err := r.brokerArg(a, "pause N|leader:STREAM/SHARD")
	if c == nil || err != nil {
		return "", err
	}
	c.World.Pause(cluster.SimID(id), 0)
	return fmt.Sprintf("broker %d paused", id), nil
}

// cmdResume: resume N lets a paused broker run.
func (r *Runner) cmdResume(a *args) (string, error) {
	c, id, err := r.brokerArg(a, "resume N")
	if c == nil || err != nil {
		return "", err
	}
	c.World.Resume(cluster.SimID(id))
	return fmt.Sprintf("broker %d resumed", id), nil
}

// cmdPartition: partition A... | B... cuts every link between the two
// sides (clients keep their links to every broker).
func (r *Runner) cmdPartition(a *args) (string, error) {
	p := a.positional(3, -1, "partition N... | N...")
	if p == nil {
		return "", nil
	}
	bar := -1
	for i, w := range p {
		if w == "|" {
			if bar >= 0 {
				return "", fmt.Errorf("partition refused: more than one '|'")
			}
			bar = i
		}
	}
	if bar <= 0 || bar == len(p)-1 {
		return "", fmt.Errorf("partition refused: want brokers on both sides of '|'")
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	var left, right []uint64
	for i, w := range p {
		if i == bar {
			continue
		}
		id, err := r.broker(w)
		if err != nil {
			return "", err
		}
		if i < bar {
			left = append(left, id)
		} else {
			right = append(right, id)
		}
	}
	for _, x := range left {
		for _, y := range right {
			if x == y {
				return "", fmt.Errorf("partition refused: broker %d is on both sides", x)
			}
			c.World.Partition(cluster.SimID(x), cluster.SimID(y))
		}
	}
	return fmt.Sprintf("partitioned %s | %s", ids(left), ids(right)), nil
}

// cmdBlock: block FROM -> TO cuts one direction of one link; each end is
// a broker (N or leader:STREAM/SHARD) or a client (a, b). "block 2 -> a"
// loses broker 2's answers to client a while its requests still arrive.
func (r *Runner) cmdBlock(a *args) (string, error) {
	p := a.positional(3, 3, "block FROM -> TO")
	if p == nil {
		return "", nil
	}
	if p[1] != "->" {
		return "", fmt.Errorf("block refused: want \"block FROM -> TO\"")
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	var sims [2]int
	for k, w := range []string{p[0], p[2]} {
		if i := r.clientIndex(w); i >= 0 {
			sims[k] = c.Brokers() + 1 + i // after the brokers and the operator probe
			continue
		}
		id, err := r.broker(w)
		if err != nil {
			return "", err
		}
		sims[k] = cluster.SimID(id)
	}
	if sims[0] == sims[1] {
		return "", fmt.Errorf("block refused: both ends are %s", p[0])
	}
	c.World.Block(sims[0], sims[1])
	return fmt.Sprintf("blocked %s -> %s", p[0], p[2]), nil
}

// clientIndex is the index of client name w, or -1.
func (r *Runner) clientIndex(w string) int {
	for i, n := range r.clientNames() {
		if n == w {
			return i
		}
	}
	return -1
}

func ids(xs []uint64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, " ")
}

// cmdHeal ends the fault phase as a run's heal does: every partition,
// pause, clock and disk fault is undone and every down broker boots; no
// fault fires after it, and stabilize then also waits for every broker to
// run (a run's Liveness).
func (r *Runner) cmdHeal(a *args) (string, error) {
	if a.positional(0, 0, "heal") == nil && a.e != nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	c.World.Heal()
	r.healed = true
	return "healed", nil
}

// cmdClockJump: clock jump N +5s moves the broker's local clock.
func (r *Runner) cmdClockJump(a *args) (string, error) {
	p := a.positional(2, 2, "clock jump N +DURATION|-DURATION")
	if p == nil {
		return "", nil
	}
	d, err := parseDurationNs(p[1], true)
	if err != nil {
		return "", err
	}
	c, id, err := r.clusterBroker(p[0])
	if err != nil {
		return "", err
	}
	c.World.ClockJump(cluster.SimID(id), d)
	return fmt.Sprintf("broker %d clock %s", id, p[1]), nil
}

// cmdAdvance: advance DURATION runs the world that long; advance --until
// TIME runs it until that simulated time (nothing when it has passed).
func (r *Runner) cmdAdvance(a *args) (string, error) {
	until, isUntil := a.flag("until")
	lo, usage := 1, "advance DURATION | advance --until TIME"
	if isUntil {
		lo = 0
	}
	p := a.positional(lo, lo, usage)
	if p == nil && a.e != nil {
		return "", nil
	}
	text := until
	if !isUntil {
		text = p[0]
	}
	d, err := parseDurationNs(text, false)
	if err != nil {
		return "", err
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	if isUntil {
		d = max(0, d-c.World.NowNs())
	}
	if d > AdvanceMaxNs {
		return "", fmt.Errorf("advance %s refused: at most %s at once", text, formatNs(AdvanceMaxNs))
	}
	c.World.RunFor(d)
	return "t=" + formatNs(c.World.NowNs()), nil
}

// cmdFault: fault kind=KIND FIELD=VALUE... applies one fault of the
// world's fault table now, spelled as a plan's fault line without at_ns
// (felixsim run --list-faults lists the kinds and fields). Node ids are
// world slots: broker k is slot k-1, the operator's probe is slot N (the
// brokers' count), then the clients in order. A fault after the heal is
// refused: no fault fires once the world is healed.
func (r *Runner) cmdFault(a *args) (string, error) {
	p := a.positional(1, -1, "fault kind=KIND FIELD=VALUE... (a plan fault line without at_ns)")
	if p == nil {
		return "", nil
	}
	for _, w := range p {
		if strings.HasPrefix(w, "at_ns=") {
			return "", fmt.Errorf("fault field %s refused: a scenario's fault strikes now (advance to the time first)", w)
		}
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	now := c.World.NowNs()
	f, err := faultplan.ParseFault(fmt.Sprintf("at_ns=%d %s", now, strings.Join(p, " ")))
	if err != nil {
		return "", err
	}
	if err := faultplan.ApplyFault(c.World, f); err != nil {
		return "", err
	}
	c.World.RunFor(0)
	_, fields, _ := strings.Cut(f.String(), " ")
	return fmt.Sprintf("t=%s %s", formatNs(now), fields), nil
}

// cmdStabilize runs the world until every group has a leader, no
// membership change is pending and every running broker has applied what
// its group committed; after the heal, also until every broker runs. Not
// stable within WaitBudgetNs after the heal is a Liveness violation that
// check reports, as a run's liveness phase does.
func (r *Runner) cmdStabilize(a *args) (string, error) {
	if a.positional(0, 0, "stabilize") == nil && a.e != nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	why := ""
	err = c.World.RunUntil(func() (bool, string) {
		ok := false
		if ok, why = r.allRunning(c); ok {
			if ok, why = c.AllLed(); ok {
				if ok, why = c.MembershipSettled(); ok {
					ok, why = caughtUp(c)
				}
			}
		}
		return ok, why
	}, WaitBudgetNs)
	if err != nil {
		err = fmt.Errorf("not stable within %s: %s", formatNs(WaitBudgetNs), why)
		if r.healed && r.liveness == "" {
			r.liveness = "after the heal, " + err.Error()
		}
		return "", err
	}
	return "stable", nil
}

// allRunning reports, once the world is healed, whether every broker
// runs; before the heal a broker may be down by the story's choice.
func (r *Runner) allRunning(c *cluster.Cluster) (bool, string) {
	if !r.healed || c.Running() == c.Brokers() {
		return true, ""
	}
	for id := uint64(1); id <= uint64(c.Brokers()); id++ {
		if c.Node(id) != nil {
			continue
		}
		why := fmt.Sprintf("broker %d is not running", id)
		fs := c.Failures()
		for i := len(fs) - 1; i >= 0; i-- {
			if cluster.SimID(fs[i].Broker) == cluster.SimID(id) {
				why += fmt.Sprintf(" (its last failure, at %s: %v)", formatNs(fs[i].AtNs), fs[i].Err)
				break
			}
		}
		return false, why
	}
	return true, ""
}

// caughtUp reports whether every running broker has applied every group's
// commit index as the group's leader knows it.
func caughtUp(c *cluster.Cluster) (bool, string) {
	snap := c.Snapshot()
	commit := map[uint64]uint64{}
	for _, rs := range snap.Replicas {
		for _, g := range rs.RaftGroups {
			if g.Leader {
				commit[g.ID] = max(commit[g.ID], g.Commit)
			}
		}
	}
	for _, rs := range snap.Replicas {
		for _, g := range rs.RaftGroups {
			if g.Applied < commit[g.ID] {
				return false, fmt.Sprintf("broker %d applied %d of group %d's %d", rs.Node, g.Applied, g.ID, commit[g.ID])
			}
			if g.Commit != commit[g.ID] {
				return false, fmt.Sprintf("broker %d's commit of group %d is %d, its leader's %d", rs.Node, g.ID, g.Commit, commit[g.ID])
			}
		}
	}
	return true, ""
}

// cmdTime prints the simulated time.
func (r *Runner) cmdTime(a *args) (string, error) {
	if a.positional(0, 0, "time") == nil && a.e != nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	return "t=" + formatNs(c.World.NowNs()), nil
}
