package runner

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/relay"
	"github.com/felixsim/felixsim/sim/workload"
	"github.com/felixsim/felixsim/sim/world"
)

// StickyClientsDrawn is how many workload clients keep their broker after a
// timeout in a run whose plan is drawn from the seed (a given plan says
// its own number, 0 when it names none): one, so that a deposed leader
// still cut off from its peers is reached after the others moved on.
const StickyClientsDrawn = 1

// Namespace and StreamPrefix name the run's streams: orders/order-events,
// orders/order-events-2, …; LiveStream names its ephemeral stream, of
// LiveShards shards, which the workload's clients subscribe to live,
// publish to and send commits it must refuse (workload.Config.LiveStream).
const (
	Namespace    = "orders"
	StreamPrefix = "order-events"
	LiveStream   = "order-live"
	LiveShards   = 1
)

// upgradeDownNs is how long a broker the heal upgrades stays down.
const upgradeDownNs = 100_000_000

// run is one run's moving parts.
type run struct {
	opts  Options
	c     *cluster.Cluster
	wl    *workload.Workload
	probe *cluster.Probe
	relay *relay.Relay
	// relaySimID is the relay's sim id: the world's last node.
	relaySimID uint64
	plan       *faultplan.Plan
	res        *Result
	// hist is the workload's history as the checks read it, when they
	// read it whole (nil before, and when judged in parts).
	hist *properties.History
	// histErr is why the history (or the relay sink's record) could not be
	// read back from its spill file; the run then has no verdict.
	histErr error
	// judged is what the history checks found (nil before check).
	judged *historyJudgment
	// inRun checks the cheap invariants as the run goes.
	inRun *inRun
	// relayDrained is set when quiesce saw the relay drain every scope;
	// without it, whether every record reached the sink is unknown.
	relayDrained bool
	// obs watches leadership and the --until instant (nil when neither is asked).
	obs *observer
	// trace is the trace validator and export (nil when both are off).
	trace *traceSinks
	// drainSt is what the consumer-group drain after quiesce did.
	drainSt drainState
	// counts is the run's coverage, counted into by the cluster.
	counts *coverage.Counts
	// admin is the probe's traffic on the administered stream (nil when
	// the plan administers none; see streamadmin.go).
	admin *adminTraffic
	// density counts every broker's raft ticks and proposals.
	density node.Density
	// checking is set once the end checks start: what they find is dated
	// by its earliest finding's operations, or as found at the end
	// (settleFirsts).
	checking bool
	// change is the change probe, made when a membership change first
	// begins (nil in a run without one; see changeliveness.go).
	change *changeProbe
}

// ErrNoVerdict marks a Run error after the run began: it ran, but its
// evidence was lost (its history could not be kept), so it has no
// verdict, not even a failing one.
var ErrNoVerdict = errors.New("no verdict")

// Run performs one run: build, fault phase, heal, liveness, quiesce,
// checks. It returns an error when the run could not be set up (bad
// options, a world already open in this process) or, wrapping
// ErrNoVerdict, when its history or its relay sink's record was lost;
// every property failure is a
// Violation in the Result.
//
// A panic inside the simulated system (a broker's invariant, say) does not
// escape: the run ends there and the Result carries a Crash
// violation with the panic and its stack, so a sweep goes on and the
// failing seed is reported like any other.
func Run(opts Options) (*Result, error) { return runWith(opts, nil) }

// runWith is Run with a hook called once the run is built, before its
// first event: tests use it to plant what a run must not contain.
func runWith(opts Options, built func(*run)) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	r := &run{opts: opts.withDefaults(), counts: coverage.New()}
	if err := r.build(); err != nil {
		return nil, err
	}
	defer r.c.Close()
	defer r.wl.Close()
	defer r.relay.Close()
	defer r.trace.ledger.Close()
	if built != nil {
		built(r)
	}
	r.execute()
	if r.opts.judged != nil {
		r.opts.judged(r)
	}
	if r.histErr != nil {
		return nil, fmt.Errorf("%w: what the end checks read was lost: %w", ErrNoVerdict, r.histErr)
	}
	return r.res, nil
}

// execute runs the phases of a built run into r.res; a panic in the
// simulated system ends the run with a Crash violation.
func (r *run) execute() {
	r.res = &Result{Options: r.opts, Seed: r.opts.Seed, Plan: r.plan, Coverage: r.counts}
	r.observe()
	defer func() {
		if p := recover(); p != nil {
			r.res.Violations = append(r.res.Violations, r.inRun.take()...) // what it saw before the crash
			v := newViolation(properties.InvariantCrash, fmt.Sprintf("panic at %d ns: %v\n%s", r.c.World.NowNs(), p, debug.Stack()))
			v.AtNs, v.When, v.texts = r.c.World.NowNs(), WhenDuring, []string{fmt.Sprint(p)}
			r.res.Violations = append(r.res.Violations, v)
			r.finish()
		}
	}()
	r.c.World.RunFor(r.opts.DurationNs)
	r.c.World.Heal()
	if r.plan.UpgradesFleet() {
		r.c.FinishUpgrade(upgradeDownNs)
	}
	r.liveness()
	r.quiesce()
	r.drain()
	r.checking = true
	r.check()
	r.finish()
}

// streamNames are the run's stream names in topology order.
func streamNames(n int) []string {
	out := []string{StreamPrefix}
	for i := 2; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s-%d", StreamPrefix, i))
	}
	return out
}

// Topology is the streams a run with these options boots with: its quorum
// streams, then the ephemeral LiveStream (a plan that administers a
// stream adds AdminStream at build).
func Topology(o Options) []node.StreamSpec {
	d := o.withDefaults()
	return topology(&d)
}

func topology(o *Options) []node.StreamSpec {
	base := cluster.DefaultStreams(o.Shards)[0]
	var out []node.StreamSpec
	for _, name := range streamNames(o.Streams) {
		s := base
		s.Namespace, s.Stream = Namespace, name
		out = append(out, s)
	}
	return append(out, cluster.EphemeralStream(Namespace, LiveStream, LiveShards))
}

// liveStreams are the run's ephemeral streams, as the ephemeral checks
// name them.
func liveStreams(specs []node.StreamSpec) []properties.LiveStream {
	var out []properties.LiveStream
	for _, s := range specs {
		if cluster.IsEphemeral(s) {
			out = append(out, properties.LiveStream{Namespace: s.Namespace, Stream: s.Stream})
		}
	}
	return out
}

// workloadConfig is the run's workload: its topology from the options,
// its shape from a given plan's parameters (else the defaults).
func workloadConfig(o *Options) (workload.Config, error) {
	c := workload.Config{Seed: o.Seed, Brokers: o.Brokers, FirstSimID: o.Brokers, Clients: o.Clients, StartSpreadNs: o.ClientStartSpreadNs,
		Namespace: Namespace, Streams: streamNames(o.Streams), Shards: o.Shards, LiveStream: LiveStream, LiveShards: LiveShards, StopNs: o.DurationNs,
		WrongRouteHash: o.Defects.WrongRouteHash, TimeoutAsFailure: o.Defects.TimeoutAsFailure, HeldOps: o.historyHeldOps,
		FailedOnCopyRefusal: o.Defects.FailedOnCopyRefusal}
	if o.Plan == nil {
		c.StickyClients, c.Arrivals = StickyClientsDrawn, o.Steer.Arrivals
		return c, nil
	}
	c, err := c.WithParams(o.Plan.Workload)
	c.KeepOps = o.Plan.Ops
	return c, err
}

// WithPlan returns o set to replay plan p: the plan's seed, duration and
// workload shape (its client count among them); a plan for another world
// size is refused.
func (o Options) WithPlan(p *faultplan.Plan) (Options, error) {
	if err := p.Validate(); err != nil {
		return Options{}, err
	}
	o.Seed, o.DurationNs, o.Plan = p.Seed, p.DurationNs, p
	d := o.withDefaults()
	wc, err := workloadConfig(&d)
	if err != nil {
		return Options{}, err
	}
	if wc.Clients != 0 {
		o.Clients = wc.Clients
	}
	if want := WorldNodes(o); p.Nodes != want {
		return Options{}, fmt.Errorf("run: plan for %d nodes refused: this run has %d (brokers, clients, the liveness probe, the outbox relay)", p.Nodes, want)
	}
	return o, nil
}

// WorldNodes is the number of world slots a run with these options has:
// brokers, workload clients, the liveness probe, then the outbox relay.
func WorldNodes(o Options) int {
	d := o.withDefaults()
	return d.Brokers + d.Clients + 2
}

// relayScopes are the scopes the run's relay serves: every tenant's
// (the workload's and the liveness probe's) of every stream shard.
func relayScopes(wc workload.Config) []felix.Scope {
	var out []felix.Scope
	for _, tenant := range append(append([]string(nil), wc.Tenants...), livenessTenant) {
		for _, stream := range wc.Streams {
			for shard := uint32(0); shard < wc.Shards; shard++ {
				out = append(out, felix.Scope{Tenant: tenant, Namespace: wc.Namespace, Stream: stream, Shard: shard})
			}
		}
	}
	return out
}

// build makes the workload, the cluster (brokers, then clients, the
// liveness probe, then the outbox relay) and the seed's fault plan, and
// schedules the plan. Drawn faults strike brokers only; the plan kills
// the relay apart from them (RelayKillGapFaults), and it is not fault
// exempt, so a given plan may also pause or partition it.
func (r *run) build() error {
	o := &r.opts
	wcfg, err := workloadConfig(o)
	if err != nil {
		return err
	}
	wl, err := workload.New(wcfg)
	if err != nil {
		return err
	}
	if ts := wl.Config().Tenants; slices.Contains(ts, livenessTenant) {
		return fmt.Errorf("workload tenants %q refused: %q is the liveness probe's, whose records no history holds", ts, livenessTenant)
	}
	probe, probeSpec := cluster.NewProbe("liveness-probe")
	wc := wl.Config()
	rl, relaySpec, err := relay.New(relay.Config{Client: wc.ClientConfig(), Scopes: relayScopes(wc), SinkHeldMax: o.sinkHeldMax})
	if err != nil {
		return err
	}
	extra := append(wl.Specs(), probeSpec, relaySpec)
	nodes := o.Brokers + len(extra)
	exempt := uint64(0)
	for i := o.Brokers; i < nodes; i++ {
		exempt |= 1 << uint(i)
	}
	plan := o.Plan
	if plan == nil {
		if plan, err = r.drawPlan(nodes, exempt, wl.Config().Params()); err != nil {
			return err
		}
	}
	ccfg := cluster.Config{Seed: o.Seed, Brokers: o.Brokers, Extra: extra, Streams: topology(o), Defects: o.Defects,
		RecordTrace: o.RecordTrace, Trace: r.traceSink(plan), Counts: r.counts, Density: &r.density}
	if plan.AdministersStream() {
		ccfg.Streams, ccfg.AdminNamespace, ccfg.AdminStream = adminTopology(ccfg.Streams), Namespace, AdminStream
	}
	if plan.UpgradesFleet() {
		ccfg.BootstrapVersion, ccfg.NotFinalized = cluster.UpgradeVersion-1, true
	}
	ir := newInRun(o.Brokers)
	ir.counts = r.counts
	ccfg.Observer = ir
	ccfg.MembershipBegun = r.membershipBegun
	c, err := cluster.New(ccfg)
	if err != nil {
		return err
	}
	ir.c, r.inRun = c, ir
	r.trace.nowNs = c.World.NowNs
	r.trace.leaders.watch(c)
	wl.BindDeliveries(c.RequestDeliveries())
	r.c, r.wl, r.probe, r.relay, r.relaySimID = c, wl, probe, rl, uint64(nodes-1)
	if err := faultplan.ApplyPlan(c.World, plan); err != nil {
		c.Close()
		return err
	}
	r.plan = plan
	if plan.AdministersStream() {
		sc := adminScope()
		r.trace.gens.watch(c, []uint64{c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)})
		ir.gens = &r.trace.gens
		r.startAdminTraffic()
	}
	return nil
}

// ViolationMessageLenMax caps a violation's message; a longer one is cut
// and marked, so one runaway list cannot drown the report.
const ViolationMessageLenMax = 2000

// A drawn plan's progress windows (see faultplan.Knobs.ProgressEveryNs): every
// 10 s of faults, a calm fault undoes every transient one and 2 s pass
// without a new fault, so that faults cannot pile up into a run too
// vacuous to check (see VacuousReason).
const (
	ProgressEveryNs  = 10_000_000_000
	ProgressWindowNs = 2_000_000_000
)

// drawPlan draws the seed's fault plan. Damage that outlives the heal
// (disk corruption; see faultplan.FaultKind.Lasting) stays on a minority of
// brokers, (brokers-1)/2 at most: more would be a correct cluster losing
// its quorum for good, which says nothing about the system. A broker whose
// store is corrupt is replaced (a new identity on a new disk, through a
// membership change), and a minority lost at once is within what the
// cluster must survive.
func (r *run) drawPlan(nodes int, exempt uint64, params []faultplan.Param) (*faultplan.Plan, error) {
	o := &r.opts
	lastingMax := (o.Brokers - 1) / 2
	var kinds []faultplan.FaultKind
	for _, k := range o.Faults.Kinds() {
		if !k.Lasting() || lastingMax > 0 {
			kinds = append(kinds, k)
		}
	}
	gap := o.FaultGapMeanNs
	if len(kinds) == 0 {
		gap = 0
	}
	return faultplan.Generate(faultplan.Knobs{Seed: o.Seed, Nodes: nodes, ExemptMask: exempt, DurationNs: o.DurationNs,
		FaultGapMeanNs: gap / max(o.Steer.FaultsPerGap, 1), Kinds: kinds, Swarm: true, Workload: params,
		Roles: []string{cluster.RoleLeader}, LastingNodesMax: lastingMax,
		ProgressEveryNs: ProgressEveryNs, ProgressWindowNs: ProgressWindowNs,
		SideNodes: []int{nodes - 1}, SideKillGapMeanNs: RelayKillGapFaults * gap,
		AnchorsNs: workload.ArrivalTimesNs(o.Seed, o.Steer.Arrivals, o.DurationNs), AnchorPpm: o.Steer.AnchorPpm, Focus: o.Steer.Focus,
		AnchorRole: anchorRole(o.Steer), AnchorDurMaxNs: o.Steer.AnchorDurMaxNs})
}

// anchorRole is the role a steering arm's anchored faults aim at.
func anchorRole(a faultplan.SteerArm) string {
	if a.AimLeader {
		return cluster.RoleLeader
	}
	return ""
}

// RelayKillGapFaults is how many mean fault gaps lie between two kills of
// the outbox relay (the world's last node) on average: the plan kills it
// apart from the drawn faults (faultplan.Knobs.SideNodes) whenever the run's
// fault kinds include kill, so its crash windows (delivered but not yet
// persisted, position lost) come up in every sweep.
const RelayKillGapFaults = 4

// violate records a failed check, at the simulated time it failed: a
// liveness or quiesce budget running out is seen during the run; what the
// end checks find is dated later, by its earliest finding (settleFirsts).
func (r *run) violate(invariant properties.InvariantName, err error) {
	if err != nil {
		v := violationOf(invariant, err)
		if !r.checking {
			v.AtNs, v.When = r.c.World.NowNs(), WhenDuring
		}
		r.res.Violations = append(r.res.Violations, v)
	}
}

// newViolation is the one way a run builds a Violation: the message
// clipped, the name checked against the properties registry, the message
// its one finding. A name the registry does not hold is a programmer
// error and panics (inside a run, execute reports that panic as a Crash:
// the run has no verdict).
func newViolation(invariant properties.InvariantName, message string) Violation {
	if _, err := properties.LookupInvariant(invariant); err != nil {
		panic(fmt.Sprintf("runner: violation refused: %v", err))
	}
	return Violation{Invariant: invariant, Message: clip(message), texts: []string{message}, count: 1}
}

// violationOf is newViolation of err's text, with each of err's findings
// (properties.FindingsOf) kept for finding the earliest.
func violationOf(invariant properties.InvariantName, err error) Violation {
	v := newViolation(invariant, err.Error())
	v.texts, v.count = properties.FindingsOf(err)
	return v
}

// clip cuts a message to ViolationMessageLenMax bytes.
func clip(s string) string {
	if len(s) <= ViolationMessageLenMax {
		return s
	}
	return s[:ViolationMessageLenMax] + fmt.Sprintf("… (%d bytes cut)", len(s)-ViolationMessageLenMax)
}

// finish fills in the counters.
func (r *run) finish() {
	h := r.hist
	if h == nil && (r.judged == nil || r.opts.KeepHistory) && r.histErr == nil {
		h, r.histErr = r.wholeHistory() // the run ended before its checks (a crash), or its history is to be kept
	}
	if r.histErr != nil {
		return // runWith refuses the whole result
	}
	tally := r.historyTally(h)
	r.res.Ops = tally.ops
	st := r.wl.Stats()
	r.res.Retries, r.res.OpSlots, r.res.OpsSkipped = st.Retries, st.Slots, st.Skipped
	r.res.TraceHash = r.c.World.TraceHash()
	r.res.SimNs = r.c.World.NowNs()
	r.res.Events = r.c.World.EventsExecuted()
	r.res.EventsByKind = r.c.World.EventsByKind()
	r.res.EventsByProcess = map[string]world.EventKindCounts{"harness": r.c.World.NodeEventsByKind(-1)}
	for id := 0; id < r.c.World.Nodes(); id++ {
		r.res.EventsByProcess[r.c.World.NodeName(id)] = r.c.World.NodeEventsByKind(id)
	}
	for id := 0; id < r.opts.Brokers; id++ {
		r.res.StoreWrittenBytes += r.c.World.Mem(id).WrittenBytes()
	}
	r.res.Density = DensityOf(&r.density, r.opts.Brokers, r.res.SimNs)
	r.res.BrokerFailures = len(r.c.Failures())
	r.res.Replaced = r.c.Replacements()
	r.res.StreamChanges = r.c.StreamChanges()
	r.res.StreamChangesUnlistedFromNs, _ = r.c.StreamChangesUnlistedFromNs()
	r.endObserving()
	r.traceResult()
	r.promotionResult()
	if r.opts.KeepHistory {
		r.res.History = h
	}
	if r.opts.RecordTrace {
		r.res.Trace, r.res.TraceTruncated = r.c.World.Trace()
	}
	r.counts.Merge(tally.counts)
	if r.relay != nil {
		countRelay(r.counts, r.relay)
	}
	r.res.Progress = tally.progress
	r.res.Vacuous = VacuousReason(r.res.Progress, clientActiveNs(&r.opts))
	r.checkEvidence()
	r.settleFirsts(h)
}

// historyTally is the history's tally: the checks' (judgeHistory), else
// h's (a run that ended before its checks).
func (r *run) historyTally(h *properties.History) historyTally {
	if r.judged != nil {
		return r.judged.tally
	}
	return tallyOf(h)
}

// settleFirsts gives each violation its earliest finding, looking the
// operations the findings name up in h, or, for a history judged in
// parts, a scope at a time.
func (r *run) settleFirsts(h *properties.History) {
	var lk historyLookup = wholeLookup{h}
	if h == nil {
		var err error
		if lk, err = r.scopedHistoryLookup(r.res.Violations); err != nil {
			r.histErr = err
			return
		}
	}
	settleFirsts(r.res.Violations, lk, r.res.SimNs)
}

// clientActiveNs is how long the workload's clients were active in the
// fault phase, on average: all of it, less half the start spread (clients
// start uniformly over ClientStartSpreadNs).
func clientActiveNs(o *Options) int64 {
	return o.DurationNs - min(o.ClientStartSpreadNs, o.DurationNs)/2
}

// livenessTenant owns the probe's liveness commits: an ordinary tenant
// (brokers reserve no names), refused as a workload tenant by build, so the
// probe's records are the only ones in its scopes and ReplicaViolations
// knows to expect no history for them.
const livenessTenant = "liveness"

// livenessScope is where the probe's liveness commits go: a tenant no
// workload client uses, so the history checks never see them.
func livenessScope(stream string, shard uint32) felix.Scope {
	return felix.Scope{Tenant: livenessTenant, Namespace: Namespace, Stream: stream, Shard: shard}
}
