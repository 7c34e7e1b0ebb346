package scenario

// This file writes a failing run (a seed's, a replayed plan's, a shrunk
// one's) as a scenario, so that a bug a sweep found becomes a readable
// regression test: `felixsim scenario from DIR`.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
)

// FromRun writes res, a run made with its history kept, as a scenario:
// the run's brokers, seed, defects and streams; then, in the order the run
// did them, its operations as client commands (each by the client that
// issued it; one whose run overlapped another event is sent with --nowait
// and awaited where the run completed it) and its faults as fault
// commands, each preceded by advance --until the run's time of it; then
// the heal, stabilize, a drain of every consumer group the history used
// when the run failed GroupDeliversEveryRecord, and check. The expected
// outputs are left empty: Run fills them. A fault on the run's liveness
// probe or outbox relay, which a scenario does not run, becomes a comment.
func FromRun(res *runner.Result) (*File, error) {
	if res.History == nil || res.Plan == nil {
		return nil, fmt.Errorf("scenario from a run refused: the run kept no history or plan")
	}
	o := res.Options
	clients := o.Clients
	for _, op := range res.History.Ops {
		clients = max(clients, op.Client+1)
	}
	if clients > len(ClientNames) {
		return nil, fmt.Errorf("scenario from a run refused: it has %d clients, a scenario at most %d", clients, len(ClientNames))
	}
	w := &fromRun{res: res, clients: clients}
	if err := w.header(); err != nil {
		return nil, err
	}
	if err := w.timeline(); err != nil {
		return nil, err
	}
	w.ending()
	return &File{Name: "from-run", Header: w.purpose(), Purpose: "from a run", Commands: w.cmds}, nil
}

// fromRun is FromRun's state: the commands written so far.
type fromRun struct {
	res     *runner.Result
	clients int
	cmds    []Command
	// comments wait for the next command.
	comments []string
	// atNs is the run time the last advance reached.
	atNs int64
}

// add appends a command line, with the comments waiting for it.
func (w *fromRun) add(words ...string) {
	text := strings.Join(words, " ")
	args, err := Split(text)
	if err != nil || !Known(args) {
		panic(fmt.Sprintf("scenario: FromRun wrote %q, which does not parse: %v", text, err)) // quote() guards every word
	}
	w.cmds = append(w.cmds, Command{Comments: w.comments, Text: text, Args: args})
	w.comments = nil
}

func (w *fromRun) purpose() []string {
	o := w.res.Options
	inv := w.res.Decisive()
	verdict := "passed"
	if inv != "" {
		verdict = "violated " + string(inv)
	}
	return []string{
		fmt.Sprintf("# Written by `felixsim scenario from` from a run of seed %d (defects %s) that", o.Seed, o.DefectList()),
		fmt.Sprintf("# %s: its %d operations and %d faults, in the run's order and", verdict, len(w.res.History.Ops), len(w.res.Plan.Faults)),
		"# at its times, on a scenario cluster of the same brokers, streams and",
		"# defects. The scenario's world is not the run's (its clients wait for",
		"# answers one command at a time unless a call overlapped another event),",
		"# so its interleaving is close to the run's, not equal to it.",
	}
}

// header writes the cluster's configuration.
func (w *fromRun) header() error {
	o := w.res.Options
	words := []string{"brokers", fmt.Sprint(o.Brokers), "--seed", fmt.Sprint(o.Seed)}
	if d := o.DefectList(); d != "none" {
		words = append(words, "--defect", d)
	}
	if w.clients != ClientsDefault {
		words = append(words, "--clients", fmt.Sprint(w.clients))
	}
	w.add(words...)
	for _, s := range runner.Topology(o) {
		consistency := "quorum"
		if cluster.IsEphemeral(s) {
			consistency = "ephemeral"
		}
		w.add("stream", "create", s.Stream, "--namespace", s.Namespace, "--shards", fmt.Sprint(s.Shards),
			"--replication", fmt.Sprint(o.Brokers), "--consistency", consistency)
	}
	return nil
}

// runEvent is one thing the run did at a time: invoke or complete an
// operation, or fire a fault.
type runEvent struct {
	atNs int64
	// rank orders events at one time: completions, then faults, then
	// invocations.
	rank int
	op   int // index into the history, or -1
	// fault is the plan fault (rank 1).
	fault faultplan.FaultEvent
}

// timeline writes the run's operations and faults in time order.
func (w *fromRun) timeline() error {
	ops := w.res.History.Ops
	var evs []runEvent
	for i := range ops {
		evs = append(evs, runEvent{atNs: ops[i].InvokeNs, rank: 2, op: i})
		if ops[i].CompleteNs > 0 {
			evs = append(evs, runEvent{atNs: ops[i].CompleteNs, rank: 0, op: i})
		}
	}
	for _, f := range w.res.Plan.Faults {
		evs = append(evs, runEvent{atNs: f.AtNs, rank: 1, op: -1, fault: f})
	}
	slices.SortStableFunc(evs, func(a, b runEvent) int {
		if a.atNs != b.atNs {
			return int(a.atNs - b.atNs)
		}
		return a.rank - b.rank
	})
	nowait := overlapping(evs, len(ops))
	for k, ev := range evs {
		switch {
		case ev.rank == 0 && nowait[ev.op]:
			w.advanceTo(ev.atNs)
			w.add("await", "--client", ClientNames[ops[ev.op].Client])
		case ev.rank == 1:
			w.advanceTo(ev.atNs)
			w.fault(ev.fault)
		case ev.rank == 2:
			w.advanceTo(ev.atNs)
			words, err := opWords(&ops[ev.op])
			if err != nil {
				return fmt.Errorf("scenario from a run refused: event %d: %w", k, err)
			}
			words = append(words, "--client", ClientNames[ops[ev.op].Client])
			if nowait[ev.op] {
				words = append(words, "--nowait")
			}
			w.add(words...)
		}
	}
	return nil
}

// overlapping marks the operations another event falls inside of (after
// their invocation, before their completion) or that never completed:
// those are sent with --nowait.
func overlapping(evs []runEvent, ops int) []bool {
	out := make([]bool, ops)
	var open []int // invoked, not yet completed, in invocation order
	for _, ev := range evs {
		if ev.rank == 0 {
			open = slices.DeleteFunc(open, func(op int) bool { return op == ev.op })
			continue
		}
		for _, op := range open {
			out[op] = true
		}
		if ev.rank == 2 {
			open = append(open, ev.op)
		}
	}
	for _, op := range open {
		out[op] = true // never completed
	}
	return out
}

// advanceTo writes advance --until the run's time atNs when it is at
// least a millisecond past the last one written.
func (w *fromRun) advanceTo(atNs int64) {
	if atNs < w.atNs+1_000_000 {
		return
	}
	w.atNs = atNs
	w.add("advance", "--until", durationWord(atNs))
}

// durationWord spells ns as parseDurationNs reads it: whole milliseconds
// when exact, else microseconds rounded up.
func durationWord(ns int64) string {
	if ns%1_000_000 == 0 {
		return fmt.Sprintf("%dms", ns/1_000_000)
	}
	return fmt.Sprintf("%dus", (ns+999)/1_000)
}

// fault writes a plan fault with its nodes renumbered to the scenario's
// world, or as a comment when it strikes a node a scenario does not run.
func (w *fromRun) fault(f faultplan.FaultEvent) {
	o := w.res.Options
	moved, ok := f.Renumbered(func(id int) (int, bool) {
		switch {
		case id < o.Brokers:
			return id, true
		case id < o.Brokers+o.Clients:
			return id + 1, true // after the scenario's operator probe
		}
		return 0, false
	})
	_, fields, _ := strings.Cut(f.String(), " ")
	if !ok {
		w.comments = append(w.comments, "# left out, it strikes the run's liveness probe or relay: "+fields)
		return
	}
	_, fields, _ = strings.Cut(moved.String(), " ")
	w.add(append([]string{"fault"}, strings.Fields(fields)...)...)
}

// ending writes the heal, stabilize, drains when the verdict needs them,
// and the check.
func (w *fromRun) ending() {
	w.advanceTo(w.res.Options.DurationNs)
	w.add("heal")
	w.add("stabilize")
	if w.res.Decisive() == properties.InvariantGroupDeliversEveryRecord {
		seen := map[properties.GroupKey]bool{}
		for _, op := range w.res.History.Ops {
			k := properties.GroupKey{Scope: op.Scope, Group: op.Group}
			if op.Group == "" || seen[k] {
				continue
			}
			seen[k] = true
			sc := op.Scope
			w.add("group", "drain", sc.Tenant, sc.Namespace, fmt.Sprintf("%s/%d", sc.Stream, sc.Shard), quote(op.Group))
		}
	}
	w.add("check")
}

// opWords is the client command for one history operation.
func opWords(op *properties.HistoryOp) ([]string, error) {
	sc := op.Scope
	shard := fmt.Sprintf("%s/%d", sc.Stream, sc.Shard)
	for _, s := range []string{sc.Tenant, sc.Namespace, sc.Stream, op.EntityKey, op.Key, op.Group} {
		if err := writable(s); err != nil {
			return nil, fmt.Errorf("op %d: %w", op.ID, err)
		}
	}
	switch op.Kind {
	case properties.HistoryCommit, properties.HistoryCommitIf:
		words := []string{strings.ReplaceAll(op.Kind.String(), "_", "-"), sc.Tenant, sc.Namespace, quote(op.EntityKey)}
		ops, err := recordWords(sc.Stream, op.Record)
		if err != nil {
			return nil, fmt.Errorf("op %d: %w", op.ID, err)
		}
		words = append(words, ops...)
		if op.Kind == properties.HistoryCommitIf {
			words = append(words, "at", fmt.Sprint(op.Record.ExpectedOffset))
		}
		return words, nil
	case properties.HistoryPublish, properties.HistoryPublishIf, properties.HistoryEnqueue, properties.HistoryLivePublish:
		if err := writable(string(op.Record.Payload)); err != nil {
			return nil, fmt.Errorf("op %d: %w", op.ID, err)
		}
		verb := strings.ReplaceAll(op.Kind.String(), "_", "-")
		if op.Kind == properties.HistoryLivePublish {
			verb = "publish" // on an ephemeral stream, a live publish
		}
		words := []string{verb, sc.Tenant, sc.Namespace, sc.Stream, quote(op.EntityKey), quote(string(op.Record.Payload))}
		if op.Kind == properties.HistoryPublishIf {
			words = append(words, "at", fmt.Sprint(op.Record.ExpectedOffset))
		}
		return words, nil
	case properties.HistoryStateGet:
		return []string{"state-get", sc.Tenant, sc.Namespace, sc.Stream, quote(op.EntityKey), quote(op.Key)}, nil
	case properties.HistorySubscribe:
		return []string{"sub", sc.Tenant, sc.Namespace, shard, "--from", fmt.Sprint(op.FromOffset), "--max", fmt.Sprint(op.MaxEntries)}, nil
	case properties.HistoryLiveRead:
		return []string{"sub", sc.Tenant, sc.Namespace, shard, "--max", fmt.Sprint(op.MaxEntries)}, nil
	case properties.HistoryGroupFetch:
		return []string{"group", "fetch", sc.Tenant, sc.Namespace, shard, quote(op.Group), "--max", fmt.Sprint(op.MaxEntries)}, nil
	case properties.HistoryGroupAck:
		return []string{"group", "ack", sc.Tenant, sc.Namespace, shard, quote(op.Group), fmt.Sprint(op.AckOffset)}, nil
	}
	return nil, fmt.Errorf("op %d: kind %s has no scenario command", op.ID, op.Kind)
}

// recordWords are a commit's operations: its event, then its state
// operations, all on stream.
func recordWords(stream string, rec *felix.Record) ([]string, error) {
	var words []string
	switch rec.Event {
	case felix.EventPublish:
		words = append(words, "publish", stream, quote(string(rec.Payload)))
	case felix.EventEnqueue:
		words = append(words, "enqueue", stream, quote(string(rec.Payload)))
	default:
		return nil, fmt.Errorf("a commit whose event is %s has no scenario command", rec.Event)
	}
	for _, so := range rec.Ops {
		if err := writable(so.Key); err != nil {
			return nil, err
		}
		if err := writable(string(so.Value)); err != nil {
			return nil, err
		}
		if so.Kind == felix.OpDelete {
			words = append(words, "delete", stream, quote(so.Key))
			continue
		}
		words = append(words, "put", stream, quote(so.Key), quote(string(so.Value)))
	}
	if err := writable(string(rec.Payload)); err != nil {
		return nil, err
	}
	return words, nil
}

// writable refuses text a scenario word cannot hold: a quote (words are
// quoted without escapes), a line break, or a leading "--" (read as a
// flag, quoted or not).
func writable(s string) error {
	if strings.ContainsAny(s, "'\n\r") || strings.HasPrefix(s, "--") {
		return fmt.Errorf("%q cannot be written in a scenario (a quote, a line break or a leading --)", s)
	}
	return nil
}

// quote makes s one scenario word: quoted when it is empty or holds a
// space, a tab or '|'.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t|") {
		return "'" + s + "'"
	}
	return s
}

// Shows reports whether the last check of f, as outputs ran it, reports
// a violation of inv.
func Shows(f *File, outputs []string, inv properties.InvariantName) bool {
	for i := len(f.Commands) - 1; i >= 0; i-- {
		if f.Commands[i].Args[0] == "check" {
			return strings.Contains("\n"+outputs[i], "\nviolation "+string(inv)+":")
		}
	}
	return false
}
