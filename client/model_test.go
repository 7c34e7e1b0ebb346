package client

import (
	"errors"
	"testing"

	"github.com/felixsim/felixsim/wire"
	"pgregory.net/rapid"
)

// callModel is what the model knows of one commit call.
type callModel struct {
	p         *Pending[Receipt]
	body      wire.RequestBody // shared by the call's first send and its redirects
	lastID    uint64           // the request id of its latest send
	sends     int              // sends the model expects: 1 + redirects
	notLeader int
	doneCount int
}

// TestClientAgainstModel drives a client with random commits, answers
// (current, stale, duplicated, from the wrong broker; Written, NotLeader,
// Internal) and ticks, and checks it against a tiny model: every call
// completes exactly once, a write is sent once plus once per NotLeader
// redirect and never re-sent after a timeout, a timed-out write's outcome is
// unknown, and nothing is in flight once every deadline has passed.
func TestClientAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		redirectsMax := rapid.IntRange(0, 2).Draw(t, "redirects")
		tr := &recorder{}
		c, err := New(Config{Brokers: []NodeID{1, 2, 3}, Streams: []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}},
			CallTimeoutNs: 100, NotLeaderRedirectsMax: redirectsMax}, tr)
		if err != nil {
			t.Fatal(err)
		}
		var calls []*callModel
		byBody := map[wire.RequestBody]*callModel{}
		var nowNs int64
		for step := rapid.IntRange(1, 60).Draw(t, "steps"); step > 0; step-- {
			switch rapid.IntRange(0, 2).Draw(t, "action") {
			case 0:
				m := &callModel{sends: 1}
				var err error
				m.p, err = c.Commit(nowNs, "acme", "orders", []byte{rapid.Byte().Draw(t, "entity")},
					[]CommitOp{Publish("order-events", nil), Put("order-events", "k", nil)})
				if err != nil {
					t.Fatalf("valid commit refused: %v", err)
				}
				m.p.OnDone(func(Receipt, error) { m.doneCount++ })
				s := tr.last(t)
				m.body, m.lastID = s.req.Body, s.req.ID
				byBody[m.body] = m
				calls = append(calls, m)
			case 1:
				if len(tr.sends) > 0 {
					answerRandom(t, c, tr, byBody, nowNs, redirectsMax)
				}
			case 2:
				nowNs += rapid.Int64Range(1, 60).Draw(t, "elapsed")
				c.Tick(nowNs)
			}
			checkCalls(t, c, tr, calls)
		}
		c.Tick(nowNs + 100)
		checkCalls(t, c, tr, calls)
		for i, m := range calls {
			if m.doneCount != 1 {
				t.Fatalf("call %d completed %d times after every deadline passed", i, m.doneCount)
			}
		}
	})
}

// answerRandom answers one request ever sent, and updates the model when
// the answer is one the client must act on.
func answerRandom(t *rapid.T, c *Client, tr *recorder, byBody map[wire.RequestBody]*callModel, nowNs int64, redirectsMax int) {
	s := tr.sends[rapid.IntRange(0, len(tr.sends)-1).Draw(t, "which")]
	from := s.to
	if rapid.IntRange(0, 9).Draw(t, "wrong broker") == 0 {
		from = from%3 + 1
	}
	var body wire.AnswerBody
	switch rapid.IntRange(0, 2).Draw(t, "answer") {
	case 0:
		body = &wire.Written{Offset: rapid.Uint64().Draw(t, "offset")}
	case 1:
		body = &wire.Error{Code: wire.CodeNotLeader, LeaderHint: rapid.Uint64Range(0, 4).Draw(t, "hint")}
	default:
		body = &wire.Error{Code: wire.CodeInternal}
	}
	m := byBody[s.req.Body]
	live := !m.p.Done() && s.req.ID == m.lastID && from == s.to
	c.Deliver(nowNs, from, &wire.Answer{ID: s.req.ID, Body: body})
	if e, ok := body.(*wire.Error); live && ok && e.Code == wire.CodeNotLeader && m.notLeader < redirectsMax {
		m.notLeader++
		m.sends++
		m.lastID = tr.last(t).req.ID
	}
}

func checkCalls(t *rapid.T, c *Client, tr *recorder, calls []*callModel) {
	sends := map[wire.RequestBody]int{}
	for _, s := range tr.sends {
		sends[s.req.Body]++
	}
	inFlight := 0
	for i, m := range calls {
		if sends[m.body] != m.sends {
			t.Fatalf("call %d was sent %d times; the model expects %d (NotLeader redirects %d)", i, sends[m.body], m.sends, m.notLeader)
		}
		if m.doneCount > 1 || (m.doneCount == 1) != m.p.Done() {
			t.Fatalf("call %d: callback ran %d times, Done() is %t", i, m.doneCount, m.p.Done())
		}
		if !m.p.Done() {
			inFlight++
			continue
		}
		if _, err := m.p.Result(); errors.Is(err, ErrTimeout) && !errors.Is(err, ErrUnknownOutcome) {
			t.Fatalf("call %d timed out but its outcome is not unknown: %v", i, err)
		}
	}
	if c.InFlight() != inFlight {
		t.Fatalf("client has %d calls in flight, the model %d", c.InFlight(), inFlight)
	}
}
