package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// errStarted refuses a configuration command once the cluster runs.
func (r *Runner) errStarted(cmd string) error {
	if r.c != nil {
		return fmt.Errorf("%s refused: the cluster is already running (configure it before the first command that uses it)", cmd)
	}
	return nil
}

// cmdBrokers: brokers N [--seed S] [--defect a,b] [--not-finalized]
// [--version vN] [--compact-min N] [--compact-keep N] [--clients N]
// [--change-probe]. With --change-probe the operator process writes to
// every stream shard while a membership change is in flight, as a run's
// change probe does, and check judges those writes (LivenessDuringChange).
func (r *Runner) cmdBrokers(a *args) (string, error) {
	if err := r.errStarted("brokers"); err != nil {
		return "", err
	}
	if s, ok := a.flag("seed"); ok {
		seed, err := parseUint("seed", s)
		if err != nil {
			return "", err
		}
		r.cfg.Seed = seed
	}
	if s, ok := a.flag("defect"); ok {
		d, err := runner.ParseDefects(s)
		if err != nil {
			return "", err
		}
		r.cfg.Defects = d
	}
	r.cfg.NotFinalized = a.boolFlag("not-finalized")
	r.validateTrace = a.boolFlag("validate-trace")
	if s, ok := a.flag("version"); ok {
		v, err := parseVersion(s)
		if err != nil {
			return "", err
		}
		r.cfg.BootstrapVersion = v
	}
	clients := a.intFlag("clients", ClientsDefault)
	if clients < 1 || clients > len(ClientNames) {
		return "", fmt.Errorf("--clients %d refused: want 1..%d", clients, len(ClientNames))
	}
	r.clients = clients
	r.cfg.CompactEntriesMin = a.intFlag("compact-min", 0)
	r.cfg.CompactKeepEntries = a.intFlag("compact-keep", 0)
	r.changeProbe = a.boolFlag("change-probe")
	p := a.positional(1, 1, "brokers N [--seed S] [--defect NAMES] [--not-finalized] [--version vN] [--compact-min N] [--compact-keep N] [--clients N] [--validate-trace] [--change-probe]")
	if p == nil {
		return "", nil
	}
	n, err := strconv.Atoi(p[0])
	if err != nil || n < 1 || n > node.PeersMax {
		return "", fmt.Errorf("brokers %q refused: want 1..%d", p[0], node.PeersMax)
	}
	r.cfg.Brokers = n
	return "ok", nil
}

// parseVersion reads "v2" or "2".
func parseVersion(s string) (uint32, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "v"), 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("version %q refused: want v1, v2, ...", s)
	}
	return uint32(n), nil
}

// cmdStreamCreate: stream create NAME [--namespace NS] --shards N
// --replication R --consistency quorum|ephemeral [--retain N]. Before the
// cluster starts it adds to the bootstrap topology; once it runs, it asks
// the metadata leader to create a deleted stream of the topology again,
// as its next generation (stream create NAME [--namespace NS]).
func (r *Runner) cmdStreamCreate(a *args) (string, error) {
	if r.c != nil {
		return r.streamAdmin(a, node.AdminStreamCreate, "stream create NAME [--namespace NS]")
	}
	ns, ok := a.flag("namespace")
	if !ok {
		ns = "orders"
	}
	shards := a.intFlag("shards", 1)
	repl := a.intFlag("replication", 0)
	consistency, _ := a.flag("consistency")
	retain := a.intFlag("retain", 1<<20)
	p := a.positional(1, 1, "stream create NAME [--namespace NS] --shards N --replication R --consistency quorum|ephemeral [--retain N]")
	if p == nil {
		return "", nil
	}
	brokers := r.cfg.Brokers
	if brokers == 0 {
		brokers = cluster.BrokersDefault
	}
	if repl != 0 && repl != brokers {
		return "", fmt.Errorf("replication %d refused: every broker replicates every group, so it must equal the %d brokers", repl, brokers)
	}
	kind := statemachine.StreamQuorum
	switch consistency {
	case "", "quorum":
	case "ephemeral":
		kind = statemachine.StreamEphemeral
	default:
		return "", fmt.Errorf("consistency %q refused: want quorum or ephemeral", consistency)
	}
	if shards < 1 || retain < 1 {
		return "", fmt.Errorf("stream %s refused: shards and retain must be at least 1", p[0])
	}
	spec := node.StreamSpec{Namespace: ns, Stream: p[0], Shards: uint32(shards), Kind: kind,
		RetainedLenMax: retain, ReplayWindowLenMax: 1 << 20, GroupsMax: 64, LeasesPerGroupMax: 1024}
	for _, s := range r.cfg.Streams {
		if s.Namespace == ns && s.Stream == p[0] {
			return "", fmt.Errorf("stream %s/%s refused: it exists", ns, p[0])
		}
	}
	r.cfg.Streams = append(r.cfg.Streams, spec)
	return "ok", nil
}

// cmdStreamDelete: stream delete NAME [--namespace NS], an operator
// request to the metadata leader: the stream's shards refuse requests
// once they apply it, which the command waits for (as it waits for a
// create's new generation).
func (r *Runner) cmdStreamDelete(a *args) (string, error) {
	return r.streamAdmin(a, node.AdminStreamDelete, "stream delete NAME [--namespace NS] [--nowait]")
}

// streamAdmin sends a stream create or delete of a running cluster's
// stream to the metadata leader and prints its answer, once every shard
// carried it into its log; with --nowait it only sends it ("sent"), so
// that faults can strike while the shards carry it.
func (r *Runner) streamAdmin(a *args, kind node.AdminKind, usage string) (string, error) {
	ns, ok := a.flag("namespace")
	if !ok {
		ns = "orders"
	}
	nowait := a.boolFlag("nowait")
	p := a.positional(1, 1, usage)
	if p == nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	if nowait {
		lead, ok := c.Leader(node.MetaGroup)
		if !ok {
			return "", fmt.Errorf("stream %s --nowait: the metadata group has no leader", p[0])
		}
		r.probe.SendAdmin(lead, &node.AdminRequest{Kind: kind, Namespace: ns, Stream: p[0]})
		return "sent", nil
	}
	askedNs := c.World.NowNs()
	ans, err := r.probe.Admin(c, &node.AdminRequest{Kind: kind, Namespace: ns, Stream: p[0]}, WaitBudgetNs)
	if err != nil {
		return "", err
	}
	if _, ok := ans.Body.(*wire.Acked); ok {
		if err := r.awaitIncarnation(kind, ns, p[0], askedNs); err != nil {
			return "", err
		}
	}
	return answerText(ans), nil
}

// cmdReplace: replace broker N [--boot-after D]: broker N's disk is
// replaced by an empty one; the slot boots again after D (default the
// cluster's restart delay) under a new raft identity, and the operator
// moves every group to the new membership (the old identity removed, the
// new one added as a learner, caught up by snapshot, then promoted).
func (r *Runner) cmdReplace(a *args) (string, error) {
	bootAfterNs := int64(-1)
	if s, ok := a.flag("boot-after"); ok {
		d, err := parseDurationNs(s, false)
		if err != nil {
			return "", err
		}
		bootAfterNs = d
	}
	p := a.positional(1, 1, "replace broker N [--boot-after DURATION]")
	if p == nil {
		return "", nil
	}
	c, id, err := r.clusterBroker(p[0])
	if err != nil {
		return "", err
	}
	if bootAfterNs < 0 {
		bootAfterNs = c.Config().RestartAfterFailNs
	}
	slot := cluster.SimID(id)
	old := c.IdentityOf(slot)
	c.World.ReplaceDisk(slot, bootAfterNs)
	if now := c.IdentityOf(slot); now != old {
		return fmt.Sprintf("broker %d: disk replaced; boots in %s as identity %d (was %d)", slot+1, formatNs(bootAfterNs), now, old), nil
	}
	return fmt.Sprintf("broker %d: disk replaced; boots in %s under its old identity %d", slot+1, formatNs(bootAfterNs), old), nil
}

// cmdFinalize: finalize FEATURE, an operator request to the metadata leader.
func (r *Runner) cmdFinalize(a *args) (string, error) {
	p := a.positional(1, 1, "finalize FEATURE")
	if p == nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	ans, err := r.probe.Admin(c, &node.AdminRequest{Kind: node.AdminFinalize, Feature: p[0]}, WaitBudgetNs)
	if err != nil {
		return "", err
	}
	return answerText(ans), nil
}

// answerText renders a broker's answer to an operator request.
func answerText(ans *wire.Answer) string {
	switch b := ans.Body.(type) {
	case *wire.Acked:
		return "ok"
	case *wire.Error:
		return "refused: " + b.Error()
	}
	return fmt.Sprintf("answer %T", ans.Body)
}

// cmdUpgrade: upgrade broker N --version vN: the broker restarts at the
// version after the cluster's restart delay.
func (r *Runner) cmdUpgrade(a *args) (string, error) {
	vs, ok := a.flag("version")
	p := a.positional(1, 1, "upgrade broker N --version vN")
	if p == nil {
		return "", nil
	}
	if !ok {
		return "", fmt.Errorf("upgrade refused: --version is required")
	}
	v, err := parseVersion(vs)
	if err != nil {
		return "", err
	}
	c, id, err := r.clusterBroker(p[0])
	if err != nil {
		return "", err
	}
	c.Upgrade(id, v, c.Config().RestartAfterFailNs)
	return fmt.Sprintf("broker %d restarts at v%d", id, v), nil
}

// broker resolves a broker word: a raft id, or leader:STREAM/SHARD (or
// leader:meta) for whoever leads that group now.
func (r *Runner) broker(w string) (uint64, error) {
	c, err := r.cluster()
	if err != nil {
		return 0, err
	}
	if g, ok := strings.CutPrefix(w, "leader:"); ok {
		group, _, err := r.group(g)
		if err != nil {
			return 0, err
		}
		id, ok := c.Leader(group)
		if !ok {
			return 0, fmt.Errorf("%s has no leader now", g)
		}
		return id, nil
	}
	n, err := strconv.ParseUint(w, 10, 64)
	if err != nil || n < 1 || n > uint64(c.Brokers()) {
		return 0, fmt.Errorf("broker %q refused: want 1..%d or leader:STREAM/SHARD", w, c.Brokers())
	}
	return n, nil
}

// group resolves "meta", "STREAM/SHARD" or "NS/STREAM/SHARD" to a raft
// group and its stream spec.
func (r *Runner) group(w string) (uint64, node.StreamSpec, error) {
	c, err := r.cluster()
	if err != nil {
		return 0, node.StreamSpec{}, err
	}
	if w == "meta" {
		return node.MetaGroup, node.StreamSpec{}, nil
	}
	parts := strings.Split(w, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, node.StreamSpec{}, fmt.Errorf("group %q refused: want STREAM/SHARD, NS/STREAM/SHARD or meta", w)
	}
	ns := ""
	if len(parts) == 3 {
		ns, parts = parts[0], parts[1:]
	}
	shard, err := strconv.ParseUint(parts[1], 10, 32)
	if err != nil {
		return 0, node.StreamSpec{}, fmt.Errorf("group %q refused: shard %q is not a number", w, parts[1])
	}
	for _, s := range c.Config().Streams {
		if s.Stream == parts[0] && (ns == "" || ns == s.Namespace) {
			if uint32(shard) >= s.Shards {
				return 0, s, fmt.Errorf("group %q refused: stream %s has %d shards", w, s.Stream, s.Shards)
			}
			return c.RaftGroupOf(s.Namespace, s.Stream, uint32(shard)), s, nil
		}
	}
	return 0, node.StreamSpec{}, fmt.Errorf("group %q refused: no stream %q", w, parts[0])
}
