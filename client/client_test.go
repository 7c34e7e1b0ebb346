package client

import (
	"errors"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
	"github.com/stretchr/testify/require"
)

func commitOrder(t *testing.T, c *Client, nowNs int64) *Pending[Receipt] {
	t.Helper()
	p, err := c.Commit(nowNs, "acme", "orders", []byte("order-42"), []CommitOp{
		Enqueue("order-events", []byte(`{"type":"placed","id":42}`)),
		Put("order-events", "order-42", []byte(`{"status":"placed"}`)),
		Delete("order-events", "cart-42"),
	})
	require.NoError(t, err)
	return p
}

func TestCommitSendsOneRecord(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p := commitOrder(t, c, 0)
	require.Len(t, tr.sends, 1)
	body, ok := tr.sends[0].req.Body.(*wire.Commit)
	require.True(t, ok, "sent %T", tr.sends[0].req.Body)
	require.Equal(t, felix.Record{
		Event:   felix.EventEnqueue,
		Payload: []byte(`{"type":"placed","id":42}`),
		Ops: []felix.StateOp{
			{Kind: felix.OpPut, Key: "order-42", Value: []byte(`{"status":"placed"}`)},
			{Kind: felix.OpDelete, Key: "cart-42"},
		},
	}, body.Record)
	require.False(t, p.Done())
	_, err := p.Result()
	require.ErrorIs(t, err, ErrNotDone)
	answer(t, c, tr, 5, &wire.Written{Offset: 17})
	r, err := p.Result()
	require.NoError(t, err)
	require.Equal(t, Receipt{Offset: 17}, r)
	require.Zero(t, c.InFlight())
}

// TestStateVersionIsReceiptOffset walks the seeds' example: commit, then
// state_get on the same entity, version equal to the receipt's offset.
func TestStateVersionIsReceiptOffset(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p := commitOrder(t, c, 0)
	answer(t, c, tr, 1, &wire.Written{Offset: 9})
	rc, err := p.Result()
	require.NoError(t, err)
	g, err := c.StateGet(2, "acme", "orders", "order-events", []byte("order-42"), "order-42")
	require.NoError(t, err)
	require.Equal(t, &wire.StateGet{Key: "order-42"}, tr.last(t).req.Body)
	answer(t, c, tr, 3, &wire.StateValue{Found: true, Value: []byte(`{"status":"placed"}`), Version: 9})
	st, err := g.Result()
	require.NoError(t, err)
	require.Equal(t, State{Found: true, Value: []byte(`{"status":"placed"}`), Version: rc.Offset}, st)
}

func TestConditionalWriteAnswers(t *testing.T) {
	c, tr := newTestClient(t, 0)
	ops := []CommitOp{Publish("order-events", []byte("tick")), Put("order-events", "score", []byte("3:1"))}
	p, err := c.CommitIf(0, "acme", "orders", []byte("match-7"), ops, 12)
	require.NoError(t, err)
	rec := tr.last(t).req.Body.(*wire.CommitIf).Record
	require.True(t, rec.Conditional)
	require.Equal(t, uint64(12), rec.ExpectedOffset)
	answer(t, c, tr, 1, &wire.Refused{Tail: 14})
	w, err := p.Result()
	require.NoError(t, err)
	require.Equal(t, Refused{Tail: 14}, w)

	q, err := c.PublishIf(2, "acme", "orders", "order-events", []byte("match-7"), []byte("p"), 14)
	require.NoError(t, err)
	require.IsType(t, &wire.PublishIf{}, tr.last(t).req.Body)
	answer(t, c, tr, 3, &wire.Written{Offset: 14})
	w, err = q.Result()
	require.NoError(t, err)
	require.Equal(t, Written{Offset: 14}, w)
}

func TestPublishAndEnqueueShapes(t *testing.T) {
	c, tr := newTestClient(t, 0)
	_, err := c.Publish(0, "acme", "orders", "order-events", []byte("rk"), []byte("p"))
	require.NoError(t, err)
	require.Equal(t, &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: []byte("p")}}, tr.last(t).req.Body)
	_, err = c.Enqueue(0, "acme", "orders", "order-events", []byte("rk"), []byte("w"))
	require.NoError(t, err)
	require.Equal(t, &wire.Enqueue{Record: felix.Record{Event: felix.EventEnqueue, Payload: []byte("w")}}, tr.last(t).req.Body)
	require.Equal(t, scopeOf(ShardOf([]byte("rk"), 4)), tr.last(t).req.Scope)
}

func TestGroupAndSubscribeCalls(t *testing.T) {
	c, tr := newTestClient(t, 0)
	e := []felix.Entry{{Offset: 3, Record: felix.Record{Event: felix.EventEnqueue, Payload: []byte("w")}}}
	f, err := c.GroupFetch(0, scopeOf(2), "fulfilment", 8, 500)
	require.NoError(t, err)
	require.Equal(t, &wire.GroupFetch{Group: "fulfilment", MaxEntries: 8, LeaseNs: 500}, tr.last(t).req.Body)
	answer(t, c, tr, 1, &wire.Deliveries{Entries: e, LeaseExpiryNs: 501})
	d, err := f.Result()
	require.NoError(t, err)
	require.Equal(t, Deliveries{Entries: e, LeaseExpiryNs: 501}, d)

	a, err := c.GroupAck(2, scopeOf(2), "fulfilment", 3)
	require.NoError(t, err)
	answer(t, c, tr, 3, &wire.Acked{})
	_, err = a.Result()
	require.NoError(t, err)

	s, err := c.Subscribe(4, scopeOf(2), 3, 10)
	require.NoError(t, err)
	answer(t, c, tr, 5, &wire.Entries{Entries: e})
	got, err := s.Result()
	require.NoError(t, err)
	require.Equal(t, e, got)
}

// TestBeforeWindowIsAnError: a read from before the retained window is not
// an empty result.
func TestBeforeWindowIsAnError(t *testing.T) {
	c, tr := newTestClient(t, 0)
	s, err := c.Subscribe(0, scopeOf(0), 0, 10)
	require.NoError(t, err)
	answer(t, c, tr, 1, &wire.Error{Code: wire.CodeBeforeWindow, WindowStart: 40})
	got, err := s.Result()
	require.Nil(t, got)
	require.ErrorIs(t, err, ErrBeforeWindow)
	require.NotErrorIs(t, err, ErrUnknownOutcome, "a read has no outcome to lose")
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, uint64(40), ce.Broker.WindowStart)
}

// TestTimeoutMakesWriteUnknownAndNeverResends: the client never re-sends a
// write whose answer did not come; a late answer is ignored.
func TestTimeoutMakesWriteUnknownAndNeverResends(t *testing.T) {
	c, tr := newTestClient(t, 3)
	p := commitOrder(t, c, 100)
	first := tr.last(t)
	c.Tick(100 + timeoutNs - 1)
	require.False(t, p.Done(), "not yet overdue")
	c.Tick(100 + timeoutNs)
	_, err := p.Result()
	require.ErrorIs(t, err, ErrUnknownOutcome)
	require.ErrorIs(t, err, ErrTimeout)
	require.Len(t, tr.sends, 1, "a timed-out write must not be re-sent")
	c.Deliver(100+timeoutNs+1, first.to, &wire.Answer{ID: first.req.ID, Body: &wire.Written{Offset: 1}})
	require.Equal(t, uint64(1), c.Stats().StrayAnswers)
	require.NotEqual(t, first.to, c.LeaderHint(first.req.Scope), "after a timeout the next call tries another broker")
}

// TestKeepBrokerOnTimeoutStaysUntilRefused: a client that keeps its broker
// sends the next call to the broker that timed out, and moves only when a
// broker refuses with NotLeader.
func TestKeepBrokerOnTimeoutStaysUntilRefused(t *testing.T) {
	tr := &recorder{}
	c, err := New(Config{Brokers: []NodeID{1, 2, 3}, Streams: []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}},
		CallTimeoutNs: timeoutNs, KeepBrokerOnTimeout: true}, tr)
	require.NoError(t, err)
	commitOrder(t, c, 100)
	first := tr.last(t)
	c.Tick(100 + timeoutNs)
	require.Equal(t, first.to, c.LeaderHint(first.req.Scope), "after a timeout the call's broker stays")
	commitOrder(t, c, 200+timeoutNs)
	answer(t, c, tr, 201+timeoutNs, &wire.Error{Code: wire.CodeNotLeader, LeaderHint: 3})
	require.Equal(t, NodeID(3), c.LeaderHint(first.req.Scope), "a refusal moves it")
}

func TestReadTimeoutIsNotUnknownOutcome(t *testing.T) {
	c, _ := newTestClient(t, 0)
	g, err := c.StateGet(0, "acme", "orders", "order-events", []byte("e"), "k")
	require.NoError(t, err)
	c.Tick(timeoutNs)
	_, err = g.Result()
	require.ErrorIs(t, err, ErrTimeout)
	require.NotErrorIs(t, err, ErrUnknownOutcome)
}

func TestNotLeaderRedirectsToHint(t *testing.T) {
	c, tr := newTestClient(t, 2)
	p := commitOrder(t, c, 0)
	first := tr.last(t)
	hint := NodeID(3)
	if first.to == 3 {
		hint = 2
	}
	answer(t, c, tr, 1, &wire.Error{Code: wire.CodeNotLeader, LeaderHint: uint64(hint)})
	require.Len(t, tr.sends, 2, "NotLeader means nothing was written: redirect")
	second := tr.last(t)
	require.Equal(t, hint, second.to)
	require.NotEqual(t, first.req.ID, second.req.ID, "a redirect uses a new request id")
	require.Equal(t, first.req.Body, second.req.Body)
	require.False(t, p.Done())
	// A duplicate of the first NotLeader answer is stray and changes nothing.
	c.Deliver(2, first.to, &wire.Answer{ID: first.req.ID, Body: &wire.Error{Code: wire.CodeNotLeader}})
	require.Len(t, tr.sends, 2)
	answer(t, c, tr, 3, &wire.Written{Offset: 5})
	r, err := p.Result()
	require.NoError(t, err)
	require.Equal(t, uint64(5), r.Offset)
	require.Equal(t, hint, c.LeaderHint(first.req.Scope), "the hint is kept for later calls")
	require.Equal(t, Stats{Sent: 2, Redirects: 1, StrayAnswers: 1}, c.Stats())
}

func TestNotLeaderWithoutRedirectsFailsDefinitely(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p := commitOrder(t, c, 0)
	answer(t, c, tr, 1, &wire.Error{Code: wire.CodeNotLeader})
	_, err := p.Result()
	require.ErrorIs(t, err, ErrNotLeader)
	// NotLeader refuses this copy only: a duplicate of the request may have
	// been proposed while the broker still led, so the outcome is unknown.
	require.ErrorIs(t, err, ErrUnknownOutcome, "NotLeader refuses one copy, not the request")
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	require.True(t, ce.CopyRefused)
	require.Len(t, tr.sends, 1)
}

func TestRedirectsAreBounded(t *testing.T) {
	c, tr := newTestClient(t, 2)
	p := commitOrder(t, c, 0)
	for i := 0; i < 3; i++ {
		answer(t, c, tr, int64(i+1), &wire.Error{Code: wire.CodeNotLeader})
	}
	require.Len(t, tr.sends, 3, "one send plus two redirects")
	require.Equal(t, []uint64{tr.sends[0].req.ID, tr.sends[1].req.ID, tr.sends[2].req.ID}, p.RequestIDs(),
		"the call names every request it sent, as the transport saw them")
	_, err := p.Result()
	require.ErrorIs(t, err, ErrNotLeader)
	tos := []NodeID{tr.sends[0].to, tr.sends[1].to, tr.sends[2].to}
	require.ElementsMatch(t, []NodeID{1, 2, 3}, tos, "without a hint the client walks the broker list")
}

func TestBrokerErrorsAndOutcome(t *testing.T) {
	for _, tc := range []struct {
		code    wire.ErrorCode
		unknown bool // the write may have landed (another copy of it may have)
		refused bool // the broker refused this copy before proposing it
	}{
		// Only a refusal that follows from the request alone rules out
		// every copy; the spec's table (docs/atomic-commit.md §1) says so.
		{wire.CodeNotOnOwningShard, false, true}, {wire.CodeInvalidRequest, false, true},
		{wire.CodeFeatureNotFinalized, true, true}, {wire.CodeEphemeralStream, true, true},
		{wire.CodeUnavailable, true, true}, {wire.CodeUnknownStream, true, true},
		{wire.CodeTimeout, true, false}, {wire.CodeInternal, true, false},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			c, tr := newTestClient(t, 3)
			p := commitOrder(t, c, 0)
			answer(t, c, tr, 1, &wire.Error{Code: tc.code, Message: "because"})
			_, err := p.Result()
			var ce *CallError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tc.code, ce.Broker.Code)
			require.Equal(t, tc.unknown, errors.Is(err, ErrUnknownOutcome), "error: %v", err)
			require.Equal(t, tc.refused, ce.CopyRefused, "error: %v", err)
			require.ErrorContains(t, err, "because")
			require.Len(t, tr.sends, 1, "only NotLeader is redirected")
		})
	}
}

func TestMismatchedAnswerIsProtocolError(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p := commitOrder(t, c, 0)
	answer(t, c, tr, 1, &wire.Refused{Tail: 3})
	_, err := p.Result()
	require.ErrorIs(t, err, ErrProtocol)
	require.ErrorIs(t, err, ErrUnknownOutcome)
}

func TestAnswerFromWrongBrokerIsStray(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p := commitOrder(t, c, 0)
	s := tr.last(t)
	c.Deliver(1, s.to%3+1, &wire.Answer{ID: s.req.ID, Body: &wire.Written{Offset: 1}})
	require.False(t, p.Done())
	require.Equal(t, uint64(1), c.Stats().StrayAnswers)
}

func TestOnDoneRunsOnceInDeliver(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p := commitOrder(t, c, 0)
	var calls []Receipt
	p.OnDone(func(r Receipt, err error) {
		require.NoError(t, err)
		calls = append(calls, r)
	})
	require.Empty(t, calls)
	answer(t, c, tr, 1, &wire.Written{Offset: 2})
	answer(t, c, tr, 1, &wire.Written{Offset: 2}) // duplicate: stray
	require.Equal(t, []Receipt{{Offset: 2}}, calls)
	late := 0
	p.OnDone(func(Receipt, error) { late++ })
	require.Equal(t, 1, late, "OnDone on a completed call runs at once")
}

func TestPendingCapRefuses(t *testing.T) {
	tr := &recorder{}
	c, err := New(Config{Brokers: []NodeID{1}, Streams: []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}}, CallTimeoutNs: 10, PendingMax: 2}, tr)
	require.NoError(t, err)
	commitOrder(t, c, 0)
	commitOrder(t, c, 0)
	_, err = c.Commit(0, "acme", "orders", []byte("x"), []CommitOp{Publish("order-events", nil)})
	require.ErrorIs(t, err, ErrNotSent)
	require.ErrorContains(t, err, "2 calls in flight, the cap")
	require.Len(t, tr.sends, 2)
}

// TestTickOrderIsRequestOrder: overdue calls fail in request-id order, so
// callbacks run in a deterministic order whatever the map does.
func TestTickOrderIsRequestOrder(t *testing.T) {
	c, _ := newTestClient(t, 0)
	var order []uint64
	for i := 0; i < 50; i++ {
		p := commitOrder(t, c, 0)
		id := p.RequestID()
		p.OnDone(func(Receipt, error) { order = append(order, id) })
	}
	c.Tick(timeoutNs)
	require.Len(t, order, 50)
	for i := 1; i < len(order); i++ {
		require.Less(t, order[i-1], order[i])
	}
}

// TestMalformedAnswerIsProtocolError: an answer that could not have been
// encoded (here, entries out of order) is not passed on as a result.
func TestMalformedAnswerIsProtocolError(t *testing.T) {
	c, tr := newTestClient(t, 0)
	s, err := c.Subscribe(0, scopeOf(1), 0, 10)
	require.NoError(t, err)
	rec := felix.Record{Event: felix.EventPublish}
	answer(t, c, tr, 1, &wire.Entries{Entries: []felix.Entry{{Offset: 5, Record: rec}, {Offset: 4, Record: rec}}})
	got, err := s.Result()
	require.Nil(t, got)
	require.ErrorIs(t, err, ErrProtocol)
	require.ErrorContains(t, err, "malformed answer")
}

// TestEphemeralPublishIsAcked: a publish to an ephemeral stream is answered
// Acked (the live subscribers got it, nothing was written): the call
// succeeds with an ephemeral receipt, while a commit answered Acked (which
// no broker should send) stays an unexpected answer, never a success.
func TestEphemeralPublishIsAcked(t *testing.T) {
	c, tr := newTestClient(t, 0)
	p, err := c.Publish(0, "acme", "orders", "order-events", []byte("rk"), []byte("p"))
	require.NoError(t, err)
	answer(t, c, tr, 1, &wire.Acked{})
	r, err := p.Result()
	require.NoError(t, err)
	require.Equal(t, Receipt{Ephemeral: true}, r)

	cp := commitOrder(t, c, 2)
	answer(t, c, tr, 3, &wire.Acked{})
	_, err = cp.Result()
	require.Error(t, err, "a commit answered Acked must not succeed")
}

// TestNotLeaderHintOfReplacedIdentity: a hint naming a broker's later
// identity (id + k*IdentityStride, a replacement in its slot) redirects to
// that broker, whichever other broker the client tried first.
func TestNotLeaderHintOfReplacedIdentity(t *testing.T) {
	const stride = 64
	tr := &recorder{}
	c, err := New(Config{Brokers: []NodeID{1, 2, 3}, Streams: []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}},
		CallTimeoutNs: timeoutNs, NotLeaderRedirectsMax: 2, IdentityStride: stride}, tr)
	require.NoError(t, err)
	commitOrder(t, c, 0)
	first := tr.last(t)
	slot := NodeID(3)
	if first.to == 3 {
		slot = 2
	}
	answer(t, c, tr, 1, &wire.Error{Code: wire.CodeNotLeader, LeaderHint: uint64(slot) + 2*stride})
	require.Equal(t, slot, tr.last(t).to, "the hint's slot gets the redirect")
	require.Equal(t, slot, c.LeaderHint(first.req.Scope))
}

// TestAttemptsRecordBrokersAndAnswers: a call names each request it sent,
// the broker it went to and the answer it took for it: the NotLeader
// answers it was redirected by, the final answer, and none for a request
// whose answer never came (the call timed out); a stray answer (a late
// one, for a request the call has left) changes nothing.
func TestAttemptsRecordBrokersAndAnswers(t *testing.T) {
	c, tr := newTestClient(t, 2)
	p := commitOrder(t, c, 0)
	answer(t, c, tr, 1, &wire.Error{Code: wire.CodeNotLeader, LeaderHint: 3})
	answer(t, c, tr, 2, &wire.Error{Code: wire.CodeNotLeader})
	c.Deliver(3, tr.sends[0].to, &wire.Answer{ID: tr.sends[0].req.ID, Body: &wire.Written{Offset: 9}}) // stray
	c.Tick(timeoutNs)
	require.Len(t, tr.sends, 3)
	want := []Attempt{
		{RequestID: tr.sends[0].req.ID, Broker: tr.sends[0].to, Answer: wire.AnswerError, Code: wire.CodeNotLeader},
		{RequestID: tr.sends[1].req.ID, Broker: 3, Answer: wire.AnswerError, Code: wire.CodeNotLeader},
		{RequestID: tr.sends[2].req.ID, Broker: tr.sends[2].to},
	}
	require.Equal(t, want, p.Attempts())
	_, err := p.Result()
	require.ErrorIs(t, err, ErrTimeout)

	p = commitOrder(t, c, 0)
	answer(t, c, tr, timeoutNs+1, &wire.Written{Offset: 4})
	require.Equal(t, []Attempt{{RequestID: tr.last(t).req.ID, Broker: tr.last(t).to, Answer: wire.AnswerWritten}}, p.Attempts())

	p = commitOrder(t, c, 0)
	answer(t, c, tr, timeoutNs+2, &wire.Error{Code: wire.CodeInvalid})
	require.Equal(t, []Attempt{{RequestID: tr.last(t).req.ID, Broker: tr.last(t).to, Answer: wire.AnswerError, Malformed: true}}, p.Attempts(),
		"a malformed answer's code is not trusted")
}

// TestTimeoutAsFailureDefect: the planted bug reports a timed-out write as
// a plain failure (neither unknown nor a timeout), and leaves reads and a
// correct client's writes as they were.
func TestTimeoutAsFailureDefect(t *testing.T) {
	tr := &recorder{}
	c, err := New(Config{Brokers: []NodeID{1}, Streams: []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}},
		CallTimeoutNs: timeoutNs, Defects: Defects{TimeoutAsFailure: true}}, tr)
	require.NoError(t, err)
	p := commitOrder(t, c, 0)
	r, err := c.StateGet(0, "acme", "orders", "order-events", []byte("order-42"), "order-42")
	require.NoError(t, err)
	c.Tick(timeoutNs)
	_, werr := p.Result()
	require.Error(t, werr)
	require.NotErrorIs(t, werr, ErrUnknownOutcome, "the planted bug calls a timed-out write certain")
	require.NotErrorIs(t, werr, ErrTimeout)
	_, rerr := r.Result()
	require.ErrorIs(t, rerr, ErrTimeout, "a read's timeout is untouched")

	correct, _ := newTestClient(t, 0)
	p = commitOrder(t, correct, 0)
	correct.Tick(timeoutNs)
	_, werr = p.Result()
	require.ErrorIs(t, werr, ErrUnknownOutcome)
}
