package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/modeltrace"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/world"
)

// Options change how a scenario runs without editing it.
type Options struct {
	// DefectsOff runs the scenario with every planted defect off, whatever
	// its brokers command asks (a defect scenario must then differ).
	DefectsOff bool
}

// Runner is one scenario's state: the cluster once built, its clients and
// the history of every client call.
type Runner struct {
	opts Options
	cfg  cluster.Config
	// c is nil until the first command that needs a cluster builds it.
	c      *cluster.Cluster
	probe  *cluster.Probe
	client map[string]*cluster.ClientProc
	// clients is how many of ClientNames run.
	clients int
	// callTimeoutNs is every client's call timeout.
	callTimeoutNs int64
	hist          properties.History
	// delivered are the outbox entries outbox read took as delivered
	// downstream (at most OutboxDeliveriesMax).
	delivered []properties.OutboxDelivery
	// drained are the consumer groups a group drain brought to their tail.
	drained []properties.GroupKey
	// healed is set by heal: the fault phase is over.
	healed bool
	// liveness says why stabilize failed after the heal ("" when it did not).
	liveness string
	// crash is set when the simulated system panicked: what and when.
	crash string
	// inFlight are each client's calls left in flight by --nowait, oldest
	// first (at most InFlightMax).
	inFlight map[string][]call
	// inRun sees every applied record, durable round and boot, as a
	// run's in-run checks do; check reports what it found.
	inRun *runner.InRunChecker
	// steps records the brokers' retention steps for the check command.
	steps *runner.RetentionSteps
	// promotions judges every promotion to voter from the brokers'
	// abstract trace, for the check command.
	promotions *runner.PromotionChecker
	// changeProbe (brokers --change-probe) has the operator process write
	// to every stream shard while a membership change is in flight, as a
	// run's change probe does; change judges those writes for check.
	changeProbe bool
	change      *runner.ChangeProbe
	// sent are the writes sent, in history order (sent.go).
	sent []sentWrite
	// ledger keeps the brokers' trace steps that match landings to
	// requests, for the check command.
	ledger *runner.LedgerSink
	// validateTrace is set by brokers --validate-trace: trace validates
	// the brokers' abstract trace from the cluster's start (nil otherwise).
	validateTrace bool
	trace         *runner.TraceCheck
	// changes are the stream deletes and creates made, each once every
	// shard applied it (incarnations.go).
	changes []streamChange
}

// ClientNames name the scenario's clients, in sim-id order: the first
// `brokers --clients N` of them run (ClientsDefault unless it says); "a"
// is the default client of every command.
var ClientNames = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

// ClientsDefault is how many clients a scenario runs unless its brokers
// command says.
const ClientsDefault = 2

// Scenario defaults.
const (
	// SeedDefault is the world seed unless `brokers --seed` says otherwise.
	SeedDefault = 1
	// CallTimeoutNsDefault is each client call's deadline.
	CallTimeoutNsDefault = 2_000_000_000
	// WaitBudgetNs bounds how long a command runs the world for its answer.
	WaitBudgetNs = 10_000_000_000
	// AdvanceMaxNs bounds one advance command.
	AdvanceMaxNs = 600_000_000_000
)

// NewRunner returns a runner with no cluster yet.
func NewRunner(opts Options) *Runner {
	return &Runner{opts: opts, inFlight: map[string][]call{}, clients: ClientsDefault, callTimeoutNs: CallTimeoutNsDefault, cfg: cluster.Config{Seed: SeedDefault, Streams: []node.StreamSpec{}}}
}

// Close releases the cluster's world and the ledger's file.
func (r *Runner) Close() {
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
	if r.ledger != nil {
		r.ledger.Close()
	}
}

// handler runs one command; its output is what the scenario checks.
type handler func(r *Runner, a *args) (string, error)

// commands maps a command's first word (or first two, for "stream create",
// "group fetch", ...) to its handler.
var commands map[string]handler

func init() {
	commands = map[string]handler{
		// cluster
		"brokers": (*Runner).cmdBrokers, "stream create": (*Runner).cmdStreamCreate,
		"stream delete": (*Runner).cmdStreamDelete, "finalize": (*Runner).cmdFinalize,
		"upgrade broker": (*Runner).cmdUpgrade, "replace broker": (*Runner).cmdReplace,
		// client
		"commit": (*Runner).cmdCommit, "commit-if": (*Runner).cmdCommitIf,
		"publish": (*Runner).cmdPublish, "publish-if": (*Runner).cmdPublishIf,
		"enqueue": (*Runner).cmdEnqueue, "state-get": (*Runner).cmdStateGet,
		"sub": (*Runner).cmdSub, "await": (*Runner).cmdAwait, "group fetch": (*Runner).cmdGroupFetch, "group ack": (*Runner).cmdGroupAck,
		"group drain": (*Runner).cmdGroupDrain, "outbox read": (*Runner).cmdOutboxRead, "outbox trim": (*Runner).cmdOutboxTrim,
		// faults
		"kill": (*Runner).cmdKill, "restart": (*Runner).cmdRestart, "pause": (*Runner).cmdPause,
		"resume": (*Runner).cmdResume, "partition": (*Runner).cmdPartition, "heal": (*Runner).cmdHeal, "block": (*Runner).cmdBlock,
		"clock jump": (*Runner).cmdClockJump, "disk tear": (*Runner).cmdDiskTear, "crash": (*Runner).cmdCrash, "fault": (*Runner).cmdFault,
		// time
		"advance": (*Runner).cmdAdvance, "stabilize": (*Runner).cmdStabilize,
		// inspection
		"log": (*Runner).cmdLog, "state": (*Runner).cmdState, "raft-log": (*Runner).cmdRaftLog,
		"leaders": (*Runner).cmdLeaders, "membership": (*Runner).cmdMembership, "check": (*Runner).cmdCheck, "time": (*Runner).cmdTime,
	}
}

// unknownCommand says why words name no command.
func unknownCommand(words []string) string {
	return "unknown command " + strconv.Quote(words[0])
}

// Exec runs one command and returns its output; an error is the command's
// output too ("error: ..."), so a scenario can show a refusal. A panic of
// the simulated system (a broker bug, as a run's Crash verdict) is the
// command's output too ("crash: ..."); after it only check runs, and it
// reports the crash.
func (r *Runner) Exec(words []string) (out string) {
	h, rest, ok := lookup(words)
	if !ok {
		return "error: " + unknownCommand(words)
	}
	if r.crash != "" && words[0] != "check" {
		return "error: not run: the simulated system panicked earlier"
	}
	defer func() {
		if p := recover(); p != nil {
			if r.c == nil {
				panic(p) // no simulation yet: a bug of the scenario runner itself
			}
			r.crash = fmt.Sprintf("panic at %d ns: %v", r.c.World.NowNs(), p)
			out = "crash: " + r.crash
		}
	}()
	a := &args{words: rest}
	out, err := h(r, a)
	if err == nil {
		err = a.err()
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimRight(out, "\n")
}

func lookup(words []string) (handler, []string, bool) {
	if len(words) >= 2 {
		if h, ok := commands[words[0]+" "+words[1]]; ok {
			return h, words[2:], true
		}
	}
	h, ok := commands[words[0]]
	return h, words[1:], ok
}

// Known reports whether words start with a command name (the parser's
// check, so a typo is a line error rather than a failed expectation).
func Known(words []string) bool {
	_, _, ok := lookup(words)
	return ok
}

// Run executes every command of f on a fresh runner and returns the
// outputs, one per command.
func Run(f *File, opts Options) []string {
	r := NewRunner(opts)
	defer r.Close()
	out := make([]string, len(f.Commands))
	for i, c := range f.Commands {
		out[i] = r.Exec(c.Args)
	}
	return out
}

// clientNames are the clients this scenario runs.
func (r *Runner) clientNames() []string { return ClientNames[:r.clients] }

// cluster returns the cluster, building it on first use from the
// configuration commands seen so far.
func (r *Runner) cluster() (*cluster.Cluster, error) {
	if r.c != nil {
		return r.c, nil
	}
	cfg := r.cfg
	if len(cfg.Streams) == 0 {
		cfg.Streams = cluster.DefaultStreams(4)
	}
	if cfg.Brokers == 0 {
		cfg.Brokers = cluster.BrokersDefault
	}
	if r.opts.DefectsOff {
		cfg.Defects = node.Defects{}
	}
	probe, spec := cluster.NewProbe("operator")
	cfg.Extra = []world.NodeSpec{spec}
	procs := map[string]*cluster.ClientProc{}
	ccfg := client.Config{CallTimeoutNs: r.callTimeoutNs, NotLeaderRedirectsMax: 3,
		Defects: client.Defects{WrongRouteHash: cfg.Defects.WrongRouteHash, TimeoutAsFailure: cfg.Defects.TimeoutAsFailure,
			FailedOnCopyRefusal: cfg.Defects.FailedOnCopyRefusal}}
	for i := 0; i < cfg.Brokers; i++ {
		ccfg.Brokers = append(ccfg.Brokers, client.NodeID(cluster.RaftID(i)))
	}
	for _, s := range cfg.Streams {
		ccfg.Streams = append(ccfg.Streams, client.StreamShards{Namespace: s.Namespace, Stream: s.Stream, Shards: s.Shards})
	}
	for _, name := range r.clientNames() {
		p, spec := cluster.NewClientProc("client-"+name, ccfg, 10_000_000)
		procs[name] = p
		cfg.Extra = append(cfg.Extra, spec)
	}
	ir := runner.NewInRunChecker(cfg.Brokers)
	cfg.Observer, r.steps = ir.Observer(), ir.Retention()
	r.ledger = runner.NewLedgerSink()
	r.promotions = runner.NewPromotionChecker()
	cfg.Trace = modeltrace.Tee{r.ledger, r.promotions, ir.Generations(), ir.Leaders()}
	if r.validateTrace {
		r.trace = runner.NewTraceCheck(cfg.Brokers)
		cfg.Trace = modeltrace.Tee{r.ledger, r.promotions, ir.Generations(), ir.Leaders(), r.trace}
	}
	if r.changeProbe {
		r.change = runner.NewChangeProbe(probe, cfg.Brokers, runner.ProbeScopes(cfg.Streams), 0)
		cfg.MembershipBegun = r.change.Begun
	}
	c, err := cluster.New(cfg)
	if err != nil {
		return nil, err
	}
	ir.Bind(c)
	if r.change != nil {
		r.change.Bind(c)
	}
	r.c, r.probe, r.client, r.inRun = c, probe, procs, ir
	if err := c.World.RunUntil(c.AllLed, WaitBudgetNs); err != nil {
		return nil, fmt.Errorf("cluster did not elect every leader: %v", err)
	}
	return c, nil
}
