package client

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/wire"
)

// Deliver hands the client an answer from broker from. The matching call
// completes (its callback runs inside Deliver) or, after NotLeader, is
// redirected. An answer that fails wire validation (answers may arrive as
// structs that were never encoded) completes its call with ErrProtocol.
// Answers matching no pending call, or from a broker the call
// was not sent to, are counted in Stats.StrayAnswers and ignored.
func (c *Client) Deliver(nowNs int64, from NodeID, a *wire.Answer) {
	cl, ok := c.pending[a.ID]
	if !ok || cl.node != from || a.Body == nil {
		c.stats.StrayAnswers++
		return
	}
	delete(c.pending, a.ID)
	if err := a.Validate(); err != nil {
		cl.answered(a.Body, true)
		ce := protocolError(cl, a.Body)
		ce.Detail = "malformed answer: " + err.Error()
		cl.finish(cl, nil, ce)
		return
	}
	cl.answered(a.Body, false)
	e, isErr := a.Body.(*wire.Error)
	if !isErr {
		cl.finish(cl, a.Body, nil)
		return
	}
	if e.Code == wire.CodeNotLeader {
		c.learn(cl.req.Scope, from, NodeID(e.LeaderHint))
		if cl.redirects < c.cfg.NotLeaderRedirectsMax {
			c.redirect(nowNs, cl)
			return
		}
	} else if e.Code == wire.CodeUnavailable || e.Code == wire.CodeTimeout {
		c.forget(cl.req.Scope, from)
	}
	cl.finish(cl, nil, c.copyRefusal(brokerError(cl, e)))
}

// redirect re-sends a call refused with NotLeader under a new request id,
// keeping its original deadline.
func (c *Client) redirect(nowNs int64, cl *call) {
	cl.redirects++
	cl.req.ID = c.nextID
	c.nextID++
	cl.node = c.target(cl.req.Scope)
	c.pending[cl.req.ID] = cl
	c.stats.Redirects++
	c.transmit(cl)
}

// brokerError turns a broker's error answer into the call's error.
func brokerError(cl *call, e *wire.Error) *CallError {
	ce := &CallError{Op: cl.req.Body.Kind(), Scope: cl.req.Scope, Node: cl.node, Broker: e}
	// Only a refusal every copy of the request meets proves a sent write
	// had no effect; another copy (a duplicate on the network, an attempt
	// before a NotLeader redirect) may have landed.
	ce.Unknown = isWrite(ce.Op) && !e.Code.RefusedForEveryCopy()
	ce.CopyRefused = isWrite(ce.Op) && e.Code.WriteNotApplied()
	switch e.Code {
	case wire.CodeNotLeader:
		ce.Cause = ErrNotLeader
	case wire.CodeBeforeWindow:
		ce.Cause = ErrBeforeWindow
	}
	return ce
}

// protocolError reports an answer kind that does not fit the call.
func protocolError(cl *call, body wire.AnswerBody) *CallError {
	return &CallError{Op: cl.req.Body.Kind(), Scope: cl.req.Scope, Node: cl.node, Unknown: isWrite(cl.req.Body.Kind()),
		Cause: ErrProtocol, Detail: fmt.Sprintf("broker answered %s", body.Kind())}
}

func isWrite(k wire.RequestKind) bool {
	switch k {
	case wire.RequestPublish, wire.RequestPublishIf, wire.RequestEnqueue, wire.RequestCommit, wire.RequestCommitIf:
		return true
	}
	return false
}

// Tick fails every call whose deadline is at or before nowNs, in request-id
// order: a write's outcome becomes unknown (it is never re-sent), and the
// shard's leader hint is dropped so the next call tries another broker
// (unless Config.KeepBrokerOnTimeout).
func (c *Client) Tick(nowNs int64) {
	var overdue []uint64
	for id, cl := range c.pending {
		if cl.deadlineNs <= nowNs {
			overdue = append(overdue, id)
		}
	}
	slices.Sort(overdue) // map order must not reach behaviour
	for _, id := range overdue {
		cl, ok := c.pending[id]
		if !ok {
			continue // completed by a callback of an earlier one
		}
		delete(c.pending, id)
		c.stats.TimedOut++
		if !c.cfg.KeepBrokerOnTimeout {
			c.forget(cl.req.Scope, cl.node)
		}
		op := cl.req.Body.Kind()
		ce := &CallError{Op: op, Scope: cl.req.Scope, Node: cl.node, Unknown: isWrite(op), Cause: ErrTimeout,
			Detail: fmt.Sprintf("no answer by %d ns (deadline %d ns)", nowNs, cl.deadlineNs)}
		c.timeoutAsFailure(op, ce)
		cl.finish(cl, nil, ce)
	}
}
