package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/wire"
)

// proc is one workload client: a fault-exempt process that owns one Felix
// client endpoint, invokes operations on a seeded schedule and records
// every invocation and completion.
type proc struct {
	w      *Workload
	index  int
	tenant string
	env    simapi.Env
	cl     *client.Client
	// tails is the next offset this client last saw per scope (from a
	// write's offset, a refusal's tail or a subscribe read): commit_if and
	// publish_if expect it.
	tails map[felix.Scope]uint64
	// cursors is each scope's next subscribe offset.
	cursors map[felix.Scope]uint64
	// retries are writes whose outcome was unknown, waiting to be re-sent.
	retries []retry
	// open counts this client's operations invoked and not completed.
	open int
	// seq numbers this client's writes, to tag their payloads and values.
	seq int
	// slots counts the operations drawn, for Config.KeepOps.
	slots slotState
	// The client's random streams, one per purpose, so that what one
	// draws never moves another's draws (see Boot).
	draws clientDraws
	// arrivals counts the client's scope arrivals (arrivals.go).
	arrivals arrivalState
}

// retry is an unconditional write to re-send: the recorded op it repeats
// and what to send again.
type retry struct {
	of uint64
	ws *writeSpec
}

// RetriesQueuedMax caps a client's writes waiting to be re-sent; overflow
// policy: the newest is not retried (its outcome stays unknown).
const RetriesQueuedMax = 64

var _ simapi.Process = (*proc)(nil)

// transport sends a client's requests to brokers over the simulated network.
type transport struct{ p *proc }

// Send hands a request to broker to (a raft id).
func (t transport) Send(to client.NodeID, req *wire.Request) {
	t.p.env.Send(cluster.SimID(uint64(to)), &cluster.RequestMsg{Req: req})
}

// Boot builds the client endpoint and schedules the first invocation.
func (p *proc) Boot(env simapi.Env) {
	if p.env != nil {
		panic(fmt.Sprintf("workload: client %d booted twice; clients are fault-exempt", p.index))
	}
	p.env = env
	cl, err := client.New(p.w.cfg.clientConfigOf(p.index), transport{p})
	if err != nil {
		panic(fmt.Sprintf("workload: client %d: validated config refused: %v", p.index, err))
	}
	p.cl = cl
	p.draws = newClientDraws(env)
	spread := p.w.cfg.StartSpreadNs
	if p.sticky() {
		spread = 0 // a sticky reader must be there when a leader is deposed, whenever that is
	}
	env.AfterNs(1+p.draws.gaps.Int63nRange(0, p.w.cfg.OpGapMeanNs+spread), p.step)
	p.scheduleArrival()
}

// Receive hands a broker's answer to the client endpoint.
func (p *proc) Receive(from int, msg simapi.Message) {
	a, ok := msg.(*cluster.AnswerMsg)
	if !ok || from >= p.w.cfg.Brokers {
		panic(fmt.Sprintf("workload: client %d received a %T from node %d", p.index, msg, from))
	}
	p.cl.Deliver(p.env.NowNs(), client.NodeID(cluster.RaftID(from)), a.Ans)
}

// step fails overdue calls, invokes at most one operation and schedules
// the next step; after StopNs it keeps stepping only until every call has
// completed.
func (p *proc) step() {
	now := p.env.NowNs()
	p.cl.Tick(now)
	stopped := now >= p.w.cfg.StopNs
	if !stopped && p.open < p.w.cfg.InFlightMax {
		if len(p.retries) > 0 {
			p.sendRetry(now)
		} else {
			p.invokeSlot(now)
		}
	}
	if stopped && p.open == 0 {
		p.retries = nil
		return
	}
	gap := p.draws.gaps.Int63nRange(1, 2*p.w.cfg.OpGapMeanNs)
	if stopped {
		gap = p.w.cfg.CallTimeoutNs / 4
	}
	p.env.AfterNs(max(gap, 1), p.step)
}
