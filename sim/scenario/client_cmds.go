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

// clientOf takes --client NAME (default a) and returns that client.
func (r *Runner) clientOf(a *args) (*cluster.ClientProc, int, error) {
	name, ok := a.flag("client")
	if !ok {
		name = ClientNames[0]
	}
	if _, err := r.cluster(); err != nil {
		return nil, 0, err
	}
	for i, n := range ClientNames {
		if n == name {
			return r.client[n], i, nil
		}
	}
	return nil, 0, fmt.Errorf("client %q refused: the clients are %s", name, strings.Join(ClientNames, ", "))
}

// await runs the world until the call completes (or is refused before
// sending) and returns its result.
func await[T any](r *Runner) func(p *client.Pending[T], err error) (T, error) {
	return func(p *client.Pending[T], err error) (T, error) { return waitFor(r, p, err) }
}

func waitFor[T any](r *Runner, p *client.Pending[T], err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	if werr := r.c.World.RunUntil(func() (bool, string) { return p.Done(), "the call's completion" }, WaitBudgetNs); werr != nil {
		var zero T
		return zero, werr
	}
	return p.Result()
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
	proc, ci, err := r.clientOf(a)
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
	cl := proc.Client
	sc := r.scopeOf(cl, tenant, ns, stream, entity)
	kind := properties.HistoryCommit
	if conditional {
		kind = properties.HistoryCommitIf
		rec.Conditional, rec.ExpectedOffset = true, expected
	}
	i := r.begin(properties.HistoryOp{Kind: kind, Scope: sc, EntityKey: entity, Record: &rec}, ci)
	if !conditional {
		rc, err := await[client.Receipt](r)(cl.Commit(proc.NowNs(), tenant, ns, []byte(entity), ops))
		return r.receipt(i, rc, err)
	}
	cw, err := await[client.ConditionalWrite](r)(cl.CommitIf(proc.NowNs(), tenant, ns, []byte(entity), ops, expected))
	return r.conditional(i, cw, err)
}

func (r *Runner) receipt(i int, rc client.Receipt, err error) (string, error) {
	op := r.finish(i, err)
	if err != nil {
		return failure(op, err), nil
	}
	op.Offset = rc.Offset
	return fmt.Sprintf("ok offset %d", rc.Offset), nil
}

func (r *Runner) conditional(i int, cw client.ConditionalWrite, err error) (string, error) {
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

// cmdPublish: publish TENANT NS STREAM KEY PAYLOAD [--client c].
func (r *Runner) cmdPublish(a *args) (string, error) { return r.event(a, properties.HistoryPublish) }

// cmdPublishIf: publish-if TENANT NS STREAM KEY PAYLOAD at OFFSET.
func (r *Runner) cmdPublishIf(a *args) (string, error) {
	return r.event(a, properties.HistoryPublishIf)
}

// cmdEnqueue: enqueue TENANT NS STREAM KEY PAYLOAD [--client c].
func (r *Runner) cmdEnqueue(a *args) (string, error) { return r.event(a, properties.HistoryEnqueue) }

func (r *Runner) event(a *args, kind properties.HistoryKind) (string, error) {
	proc, ci, err := r.clientOf(a)
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
	cl := proc.Client
	rec := felix.Record{Event: felix.EventPublish, Payload: payload}
	if kind == properties.HistoryEnqueue {
		rec.Event = felix.EventEnqueue
	}
	rec.Conditional, rec.ExpectedOffset = kind.IsConditional(), expected
	i := r.begin(properties.HistoryOp{Kind: kind, Scope: r.scopeOf(cl, tenant, ns, stream, key), EntityKey: key, Record: &rec}, ci)
	now := proc.NowNs()
	switch kind {
	case properties.HistoryPublishIf:
		cw, err := await[client.ConditionalWrite](r)(cl.PublishIf(now, tenant, ns, stream, []byte(key), payload, expected))
		return r.conditional(i, cw, err)
	case properties.HistoryEnqueue:
		rc, err := await[client.Receipt](r)(cl.Enqueue(now, tenant, ns, stream, []byte(key), payload))
		return r.receipt(i, rc, err)
	}
	rc, err := await[client.Receipt](r)(cl.Publish(now, tenant, ns, stream, []byte(key), payload))
	return r.receipt(i, rc, err)
}

// cmdStateGet: state-get TENANT NS STREAM ENTITY KEY [--client c].
func (r *Runner) cmdStateGet(a *args) (string, error) {
	proc, ci, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	p := a.positional(5, 5, "state-get TENANT NS STREAM ENTITY KEY")
	if p == nil {
		return "", nil
	}
	tenant, ns, stream, entity, key := p[0], p[1], p[2], p[3], p[4]
	cl := proc.Client
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryStateGet, Scope: r.scopeOf(cl, tenant, ns, stream, entity), EntityKey: entity, Key: key}, ci)
	st, err := await[client.State](r)(cl.StateGet(proc.NowNs(), tenant, ns, stream, []byte(entity), key))
	op := r.finish(i, err)
	if err != nil {
		return failure(op, err), nil
	}
	op.Found, op.Value, op.Version = st.Found, st.Value, st.Version
	if !st.Found {
		return "not found", nil
	}
	return fmt.Sprintf("%s = '%s' version %d", key, st.Value, st.Version), nil
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
	proc, ci, err := r.clientOf(a)
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
	i := r.begin(properties.HistoryOp{Kind: properties.HistorySubscribe, Scope: sc, FromOffset: uint64(from), MaxEntries: uint32(maxN)}, ci)
	es, err := await[[]felix.Entry](r)(proc.Client.Subscribe(proc.NowNs(), sc, uint64(from), uint32(maxN)))
	op := r.finish(i, err)
	if err != nil {
		return failure(op, err), nil
	}
	op.Entries = es
	return entriesText(es), nil
}

// cmdGroupFetch: group fetch TENANT NS STREAM/SHARD GROUP [--max N] [--lease 5s].
func (r *Runner) cmdGroupFetch(a *args) (string, error) {
	proc, ci, err := r.clientOf(a)
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
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryGroupFetch, Scope: sc, Group: p[3], MaxEntries: uint32(maxN)}, ci)
	d, err := await[client.Deliveries](r)(proc.Client.GroupFetch(proc.NowNs(), sc, p[3], uint32(maxN), uint64(leaseNs)))
	op := r.finish(i, err)
	if err != nil {
		return failure(op, err), nil
	}
	op.Entries = d.Entries
	return entriesText(d.Entries), nil
}

// cmdGroupAck: group ack TENANT NS STREAM/SHARD GROUP OFFSET.
func (r *Runner) cmdGroupAck(a *args) (string, error) {
	proc, ci, err := r.clientOf(a)
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
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryGroupAck, Scope: sc, Group: p[3], AckOffset: off}, ci)
	_, err = await[struct{}](r)(proc.Client.GroupAck(proc.NowNs(), sc, p[3], off))
	op := r.finish(i, err)
	if err != nil {
		return failure(op, err), nil
	}
	return "ok", nil
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
