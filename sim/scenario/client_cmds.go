package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// caller is the client a command speaks through.
type caller struct {
	proc *cluster.ClientProc
	// idx is the client's index in ClientNames, its history client id.
	idx  int
	name string
	// nowait is set by --nowait: the call is sent and left in flight, and
	// await reports it later.
	nowait bool
}

// clientOf takes --client NAME (default a) and --nowait, and returns the
// caller.
func (r *Runner) clientOf(a *args) (caller, error) {
	name, ok := a.flag("client")
	if !ok {
		name = ClientNames[0]
	}
	nowait := a.boolFlag("nowait")
	if _, err := r.cluster(); err != nil {
		return caller{}, err
	}
	for i, n := range r.clientNames() {
		if n == name {
			return caller{proc: r.client[n], idx: i, name: n, nowait: nowait}, nil
		}
	}
	return caller{}, fmt.Errorf("client %q refused: the clients are %s", name, strings.Join(r.clientNames(), ", "))
}

// InFlightMax bounds the calls one client may leave in flight with
// --nowait; a further one is refused.
const InFlightMax = 8

// call is one client call: done reports its completion (at once for a
// call refused before sending), and render records its outcome in the
// history and renders it.
type call struct {
	text   string
	done   func() bool
	render func() (string, error)
}

// pending makes the call for a client request's result.
func pending[T any](text string, p *client.Pending[T], err error, render func(T, error) (string, error)) call {
	if err != nil {
		var zero T
		return call{text: text, done: func() bool { return true }, render: func() (string, error) { return render(zero, err) }}
	}
	return call{text: text, done: p.Done, render: func() (string, error) { return render(p.Result()) }}
}

// issue waits for the call and renders it, or with --nowait leaves it in
// flight for a later await.
func (r *Runner) issue(who caller, c call) (string, error) {
	if who.nowait {
		q := r.inFlight[who.name]
		if len(q) >= InFlightMax {
			return "", fmt.Errorf("--nowait refused: client %s already has %d calls in flight (await them first)", who.name, InFlightMax)
		}
		r.inFlight[who.name] = append(q, c)
		return "sent", nil
	}
	return r.complete(c)
}

// complete runs the world until the call completes and renders it.
func (r *Runner) complete(c call) (string, error) {
	if err := r.c.World.RunUntil(func() (bool, string) { return c.done(), "the completion of " + c.text }, WaitBudgetNs); err != nil {
		return "", err
	}
	return c.render()
}

// cmdAwait: await [--client c] waits for the client's oldest call left in
// flight by --nowait and prints its outcome as the call itself would.
func (r *Runner) cmdAwait(a *args) (string, error) {
	name, ok := a.flag("client")
	if !ok {
		name = ClientNames[0]
	}
	if a.positional(0, 0, "await [--client c]") == nil && a.e != nil {
		return "", nil
	}
	q := r.inFlight[name]
	if len(q) == 0 {
		return "", fmt.Errorf("await refused: client %s has no call in flight (send one with --nowait)", name)
	}
	r.inFlight[name] = q[1:]
	out, err := r.complete(q[0])
	if err != nil {
		return "", err
	}
	return q[0].text + ": " + out, nil
}

// parseOps reads commit operations: publish|enqueue STREAM PAYLOAD,
// put STREAM KEY VALUE, delete STREAM KEY, in any order.
func parseOps(words []string) ([]client.CommitOp, felix.Record, error) {
	var ops []client.CommitOp
	var rec felix.Record
	for i := 0; i < len(words); {
		need := func(n int) error {
			if i+n >= len(words) {
				return fmt.Errorf("operation %q at word %d needs %d arguments", words[i], i+1, n)
			}
			return nil
		}
		switch words[i] {
		case "publish", "enqueue":
			if err := need(2); err != nil {
				return nil, rec, err
			}
			if words[i] == "publish" {
				ops = append(ops, client.Publish(words[i+1], []byte(words[i+2])))
				rec.Event = felix.EventPublish
			} else {
				ops = append(ops, client.Enqueue(words[i+1], []byte(words[i+2])))
				rec.Event = felix.EventEnqueue
			}
			rec.Payload = []byte(words[i+2])
			i += 3
		case "put":
			if err := need(3); err != nil {
				return nil, rec, err
			}
			ops = append(ops, client.Put(words[i+1], words[i+2], []byte(words[i+3])))
			rec.Ops = append(rec.Ops, felix.StateOp{Kind: felix.OpPut, Key: words[i+2], Value: []byte(words[i+3])})
			i += 4
		case "delete":
			if err := need(2); err != nil {
				return nil, rec, err
			}
			ops = append(ops, client.Delete(words[i+1], words[i+2]))
			rec.Ops = append(rec.Ops, felix.StateOp{Kind: felix.OpDelete, Key: words[i+2]})
			i += 3
		default:
			return nil, rec, fmt.Errorf("operation %q refused: want publish, enqueue, put or delete", words[i])
		}
	}
	return ops, rec, nil
}

// cutAt splits "... at N" off the end of words.
func cutAt(words []string) ([]string, uint64, error) {
	n := len(words)
	if n < 2 || words[n-2] != "at" {
		return nil, 0, fmt.Errorf("a conditional write ends with \"at OFFSET\"")
	}
	off, err := parseUint("offset", words[n-1])
	return words[:n-2], off, err
}

// scopeOf is the scope a write on stream with entity routes to.
func (r *Runner) scopeOf(cl *client.Client, tenant, ns, stream, entity string) felix.Scope {
	sc := felix.Scope{Tenant: tenant, Namespace: ns, Stream: stream}
	if n, ok := cl.ShardCount(ns, stream); ok {
		sc.Shard = client.ShardOf([]byte(entity), n)
	}
	return sc
}

// begin records a call's invocation; finish its completion.
func (r *Runner) begin(op properties.HistoryOp, clientIdx int) int {
	op.ID = uint64(len(r.hist.Ops) + 1)
	op.Client = clientIdx
	op.InvokeNs = r.c.World.NowNs()
	op.Outcome = properties.OutcomePending
	r.hist.Ops = append(r.hist.Ops, op)
	return len(r.hist.Ops) - 1
}

func (r *Runner) finish(i int, err error) *properties.HistoryOp {
	op := &r.hist.Ops[i]
	op.CompleteNs = max(r.c.World.NowNs(), op.InvokeNs+1)
	switch {
	case err == nil:
		op.Outcome = properties.OutcomeOK
	case errors.Is(err, client.ErrUnknownOutcome), errors.Is(err, client.ErrTimeout):
		op.Outcome, op.Error = properties.OutcomeUnknown, err.Error()
	default:
		op.Outcome, op.Error = properties.OutcomeFailed, err.Error()
	}
	op.NotSent = errors.Is(err, client.ErrNotSent)
	return op
}

// failure renders a call's error with its outcome.
func failure(op *properties.HistoryOp, err error) string {
	if op.NotSent {
		return "not sent: " + err.Error()
	}
	return op.Outcome.String() + ": " + err.Error()
}

// cmdCommit: commit TENANT NS ENTITY OPS... [--client c].
func (r *Runner) cmdCommit(a *args) (string, error) { return r.commit(a, false) }

// cmdCommitIf: commit-if TENANT NS ENTITY OPS... at OFFSET [--client c].
func (r *Runner) cmdCommitIf(a *args) (string, error) { return r.commit(a, true) }

func (r *Runner) commit(a *args, conditional bool) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	p := a.positional(5, -1, "commit[-if] TENANT NS ENTITY OPS... [at OFFSET]")
	if p == nil {
		return "", nil
	}
	words := p[3:]
	var expected uint64
	if conditional {
		if words, expected, err = cutAt(words); err != nil {
			return "", err
		}
	}
	ops, rec, err := parseOps(words)
	if err != nil {
		return "", err
	}
	stream := ""
	if len(ops) > 0 {
		stream = ops[0].Stream()
	}
	tenant, ns, entity := p[0], p[1], p[2]
	cl := who.proc.Client
	sc := r.scopeOf(cl, tenant, ns, stream, entity)
	kind := properties.HistoryCommit
	if conditional {
		kind = properties.HistoryCommitIf
		rec.Conditional, rec.ExpectedOffset = true, expected
	}
	i := r.begin(properties.HistoryOp{Kind: kind, Scope: sc, EntityKey: entity, Record: &rec}, who.idx)
	text := fmt.Sprintf("%s %s", kind, entity)
	if !conditional {
		pr, err := cl.Commit(who.proc.NowNs(), tenant, ns, []byte(entity), ops)
		noteSent(r, i, who, pr, err)
		return r.issue(who, pending(text, pr, err, r.receipt(i)))
	}
	pc, err := cl.CommitIf(who.proc.NowNs(), tenant, ns, []byte(entity), ops, expected)
	noteSent(r, i, who, pc, err)
	return r.issue(who, pending(text, pc, err, r.conditional(i)))
}

// receipt renders history op i's unconditional write.
func (r *Runner) receipt(i int) func(client.Receipt, error) (string, error) {
	return func(rc client.Receipt, err error) (string, error) {
		op := r.finish(i, err)
		if err != nil {
			return failure(op, err), nil
		}
		if rc.Ephemeral {
			return "ok live", nil
		}
		op.Offset = rc.Offset
		return fmt.Sprintf("ok offset %d", rc.Offset), nil
	}
}

// conditional renders history op i's conditional write.
func (r *Runner) conditional(i int) func(client.ConditionalWrite, error) (string, error) {
	return func(cw client.ConditionalWrite, err error) (string, error) {
		op := r.finish(i, err)
		if err != nil {
			return failure(op, err), nil
		}
		switch w := cw.(type) {
		case client.Written:
			op.Offset = w.Offset
			return fmt.Sprintf("written offset %d", w.Offset), nil
		case client.Refused:
			op.Outcome, op.Tail = properties.OutcomeRefused, w.Tail
			return fmt.Sprintf("refused tail %d", w.Tail), nil
		}
		return "", fmt.Errorf("conditional write answered %T", cw)
	}
}

// cmdPublish: publish TENANT NS STREAM KEY PAYLOAD [--client c].
func (r *Runner) cmdPublish(a *args) (string, error) { return r.event(a, properties.HistoryPublish) }

// cmdPublishIf: publish-if TENANT NS STREAM KEY PAYLOAD at OFFSET.
func (r *Runner) cmdPublishIf(a *args) (string, error) {
	return r.event(a, properties.HistoryPublishIf)
}

// cmdEnqueue: enqueue TENANT NS STREAM KEY PAYLOAD [--client c].
func (r *Runner) cmdEnqueue(a *args) (string, error) { return r.event(a, properties.HistoryEnqueue) }

func (r *Runner) event(a *args, kind properties.HistoryKind) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	lo, hi, usage := 5, 5, kind.String()+" TENANT NS STREAM KEY PAYLOAD"
	if kind.IsConditional() {
		lo, hi, usage = 7, 7, usage+" at OFFSET"
	}
	p := a.positional(lo, hi, usage)
	if p == nil {
		return "", nil
	}
	var expected uint64
	if kind.IsConditional() {
		if _, expected, err = cutAt(p); err != nil {
			return "", err
		}
	}
	tenant, ns, stream, key, payload := p[0], p[1], p[2], p[3], []byte(p[4])
	if kind == properties.HistoryPublish && r.ephemeral(ns, stream) {
		kind = properties.HistoryLivePublish
	}
	cl := who.proc.Client
	rec := felix.Record{Event: felix.EventPublish, Payload: payload}
	if kind == properties.HistoryEnqueue {
		rec.Event = felix.EventEnqueue
	}
	rec.Conditional, rec.ExpectedOffset = kind.IsConditional(), expected
	i := r.begin(properties.HistoryOp{Kind: kind, Scope: r.scopeOf(cl, tenant, ns, stream, key), EntityKey: key, Record: &rec}, who.idx)
	now, text := who.proc.NowNs(), fmt.Sprintf("%s %s", kind, key)
	switch kind {
	case properties.HistoryPublishIf:
		pc, err := cl.PublishIf(now, tenant, ns, stream, []byte(key), payload, expected)
		noteSent(r, i, who, pc, err)
		return r.issue(who, pending(text, pc, err, r.conditional(i)))
	case properties.HistoryEnqueue:
		pr, err := cl.Enqueue(now, tenant, ns, stream, []byte(key), payload)
		noteSent(r, i, who, pr, err)
		return r.issue(who, pending(text, pr, err, r.receipt(i)))
	}
	pr, err := cl.Publish(now, tenant, ns, stream, []byte(key), payload)
	noteSent(r, i, who, pr, err)
	return r.issue(who, pending(text, pr, err, r.receipt(i)))
}

// ephemeral reports whether the topology's stream ns/stream is ephemeral:
// a publish there is a live publish, a sub a live read.
func (r *Runner) ephemeral(ns, stream string) bool {
	for _, s := range r.cfg.Streams {
		if s.Namespace == ns && s.Stream == stream {
			return cluster.IsEphemeral(s)
		}
	}
	return false
}

// cmdStateGet: state-get TENANT NS STREAM ENTITY KEY [--client c].
func (r *Runner) cmdStateGet(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	p := a.positional(5, 5, "state-get TENANT NS STREAM ENTITY KEY")
	if p == nil {
		return "", nil
	}
	tenant, ns, stream, entity, key := p[0], p[1], p[2], p[3], p[4]
	cl := who.proc.Client
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryStateGet, Scope: r.scopeOf(cl, tenant, ns, stream, entity), EntityKey: entity, Key: key}, who.idx)
	pg, err := cl.StateGet(who.proc.NowNs(), tenant, ns, stream, []byte(entity), key)
	return r.issue(who, pending("state-get "+key, pg, err, func(st client.State, err error) (string, error) {
		op := r.finish(i, err)
		if err != nil {
			return failure(op, err), nil
		}
		op.Found, op.Value, op.Version = st.Found, st.Value, st.Version
		if !st.Found {
			return "not found", nil
		}
		return fmt.Sprintf("%s = '%s' version %d", key, st.Value, st.Version), nil
	}))
}

// scopeArg reads TENANT NS STREAM/SHARD into a scope.
func (r *Runner) scopeArg(tenant, ns, streamShard string) (felix.Scope, error) {
	_, spec, err := r.group(ns + "/" + streamShard)
	if err != nil {
		return felix.Scope{}, err
	}
	sc := felix.Scope{Tenant: tenant, Namespace: spec.Namespace, Stream: spec.Stream}
	_, shard, _ := strings.Cut(streamShard, "/")
	n, _ := parseUint("shard", shard)
	sc.Shard = uint32(n)
	return sc, nil
}

// cmdSub: sub TENANT NS STREAM/SHARD [--from N] [--max N] [--client c].
func (r *Runner) cmdSub(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	from := a.intFlag("from", 0)
	maxN := a.intFlag("max", 100)
	p := a.positional(3, 3, "sub TENANT NS STREAM/SHARD [--from N] [--max N]")
	if p == nil {
		return "", nil
	}
	sc, err := r.scopeArg(p[0], p[1], p[2])
	if err != nil {
		return "", err
	}
	op := properties.HistoryOp{Kind: properties.HistorySubscribe, Scope: sc, FromOffset: uint64(from), MaxEntries: uint32(maxN)}
	if r.ephemeral(sc.Namespace, sc.Stream) {
		op.Kind, op.FromOffset = properties.HistoryLiveRead, 0
	}
	i := r.begin(op, who.idx)
	ps, err := who.proc.Client.Subscribe(who.proc.NowNs(), sc, uint64(from), uint32(maxN))
	if op.Kind == properties.HistoryLiveRead {
		noteSent(r, i, who, ps, err)
	}
	return r.issue(who, pending("sub "+p[2], ps, err, func(es []felix.Entry, err error) (string, error) {
		op := r.finish(i, err)
		if err != nil {
			return failure(op, err), nil
		}
		op.Entries = es
		return entriesText(es), nil
	}))
}

// cmdGroupFetch: group fetch TENANT NS STREAM/SHARD GROUP [--max N] [--lease 5s].
func (r *Runner) cmdGroupFetch(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	maxN := a.intFlag("max", 10)
	leaseNs := int64(5_000_000_000)
	if s, ok := a.flag("lease"); ok {
		if leaseNs, err = parseDurationNs(s, false); err != nil {
			return "", err
		}
	}
	p := a.positional(4, 4, "group fetch TENANT NS STREAM/SHARD GROUP [--max N] [--lease 5s]")
	if p == nil {
		return "", nil
	}
	sc, err := r.scopeArg(p[0], p[1], p[2])
	if err != nil {
		return "", err
	}
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryGroupFetch, Scope: sc, Group: p[3], MaxEntries: uint32(maxN), LeaseNs: leaseNs}, who.idx)
	pf, err := who.proc.Client.GroupFetch(who.proc.NowNs(), sc, p[3], uint32(maxN), uint64(leaseNs))
	noteSent(r, i, who, pf, err)
	return r.issue(who, pending("group fetch "+p[3], pf, err, func(d client.Deliveries, err error) (string, error) {
		op := r.finish(i, err)
		if err != nil {
			return failure(op, err), nil
		}
		op.Entries, op.LeaseExpiryNs = d.Entries, int64(d.LeaseExpiryNs)
		return entriesText(d.Entries), nil
	}))
}

// cmdGroupAck: group ack TENANT NS STREAM/SHARD GROUP OFFSET.
func (r *Runner) cmdGroupAck(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	p := a.positional(5, 5, "group ack TENANT NS STREAM/SHARD GROUP OFFSET")
	if p == nil {
		return "", nil
	}
	sc, err := r.scopeArg(p[0], p[1], p[2])
	if err != nil {
		return "", err
	}
	off, err := parseUint("offset", p[4])
	if err != nil {
		return "", err
	}
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryGroupAck, Scope: sc, Group: p[3], AckOffset: off}, who.idx)
	pa, err := who.proc.Client.GroupAck(who.proc.NowNs(), sc, p[3], off)
	noteSent(r, i, who, pa, err)
	return r.issue(who, pending(fmt.Sprintf("group ack %s %d", p[3], off), pa, err, func(_ struct{}, err error) (string, error) {
		op := r.finish(i, err)
		if err != nil {
			return failure(op, err), nil
		}
		return "ok", nil
	}))
}

// entriesText renders log entries one a line.
func entriesText(es []felix.Entry) string {
	if len(es) == 0 {
		return "no entries"
	}
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(entryText(e))
	}
	return b.String()
}

// entryText is "OFFSET: EVENT 'PAYLOAD' put KEY='VALUE' delete KEY".
func entryText(e felix.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d: %s '%s'", e.Offset, e.Record.Event, e.Record.Payload)
	for _, op := range e.Record.Ops {
		if op.Kind == felix.OpDelete {
			fmt.Fprintf(&b, " delete %s", op.Key)
		} else {
			fmt.Fprintf(&b, " put %s='%s'", op.Key, op.Value)
		}
	}
	if e.Record.Conditional {
		fmt.Fprintf(&b, " if-at %d", e.Record.ExpectedOffset)
	}
	return b.String()
}
