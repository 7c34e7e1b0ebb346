package client

import (
	"errors"
	"fmt"
)

// ErrNotDone is what Pending.Result returns before the call completes.
var ErrNotDone = errors.New("call has not completed")

// Pending is the handle of one sent call. It completes exactly once, inside
// Deliver or Tick; poll it with Done and Result or register OnDone.
type Pending[T any] struct {
	id uint64
	// cl is the call, for the ids of the requests it sent.
	cl     *call
	done   bool
	result T
	err    error
	onDone func(T, error)
}

// RequestID is the id of the call's first request (redirects use new ids).
func (p *Pending[T]) RequestID() uint64 { return p.id }

// RequestIDs are the ids of every request the call has sent so far, in
// order: the first and one per NotLeader redirect (at most
// Config.NotLeaderRedirectsMax+1). The caller owns the copy.
func (p *Pending[T]) RequestIDs() []uint64 {
	out := make([]uint64, len(p.cl.attempts))
	for i := range p.cl.attempts {
		out[i] = p.cl.attempts[i].RequestID
	}
	return out
}

// Attempts are the requests the call has sent so far, in the order of
// RequestIDs, each with its broker and the answer the call took for it
// (none yet, or never: a lost or late answer, a timeout). The caller
// owns the copy.
func (p *Pending[T]) Attempts() []Attempt { return append([]Attempt(nil), p.cl.attempts...) }

// Done reports whether the call has completed.
func (p *Pending[T]) Done() bool { return p.done }

// Result is the call's result and error once Done; before that it returns
// the zero T and ErrNotDone.
func (p *Pending[T]) Result() (T, error) {
	if !p.done {
		var zero T
		return zero, ErrNotDone
	}
	return p.result, p.err
}

// OnDone registers fn to run when the call completes, or runs it now if it
// already has. Registering a second callback replaces the first.
func (p *Pending[T]) OnDone(fn func(T, error)) {
	p.onDone = fn
	if p.done && fn != nil {
		fn(p.result, p.err)
	}
}

func (p *Pending[T]) complete(v T, err error) {
	if p.done {
		panic(fmt.Sprintf("client: request %d completed twice (first err %v, now %v)", p.id, p.err, err))
	}
	p.done, p.result, p.err = true, v, err
	if p.onDone != nil {
		p.onDone(v, err)
	}
}
