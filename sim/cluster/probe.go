package cluster

import (
	"fmt"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// Probe is a scripted client process for scenario tests: the test sends
// one request at a time from outside the world and runs the world until
// the answer arrives. It is fault exempt and keeps no history; workload
// clients with timeouts and retries belong to the workload, not here.
type Probe struct {
	env    simapi.Env
	nextID uint64
	// answers holds answers by request id until the test takes them.
	answers map[uint64]*wire.Answer
}

// ProbeAnswersMax caps answers a Probe holds untaken; more panics (a test
// that never reads its answers).
const ProbeAnswersMax = 1 << 16

// NewProbe returns a probe and the world slot that hosts it (put it in
// Config.Extra).
func NewProbe(name string) (*Probe, world.NodeSpec) {
	p := &Probe{answers: map[uint64]*wire.Answer{}}
	return p, world.NodeSpec{Name: name, New: func() simapi.Process { return p }, FaultExempt: true}
}

// Boot keeps the env.
func (p *Probe) Boot(env simapi.Env) { p.env = env }

// Receive keeps answers.
func (p *Probe) Receive(from int, msg simapi.Message) {
	a, ok := msg.(*AnswerMsg)
	if !ok {
		panic(fmt.Sprintf("probe: received a %T from %d", msg, from))
	}
	if len(p.answers) >= ProbeAnswersMax {
		panic(fmt.Sprintf("probe: %d answers untaken", len(p.answers)))
	}
	p.answers[a.Ans.ID] = a.Ans
}

// Send sends a copy of req, with a fresh id, to broker raftID and returns the id.
func (p *Probe) Send(raftID uint64, req *wire.Request) uint64 {
	p.nextID++
	r := *req
	r.ID = p.nextID
	p.env.Send(SimID(raftID), &RequestMsg{Req: &r})
	return r.ID
}

// SendAdmin sends a copy of an operator request, with a fresh id, to
// broker raftID and returns the id.
func (p *Probe) SendAdmin(raftID uint64, req *node.AdminRequest) uint64 {
	p.nextID++
	r := *req
	r.ID = p.nextID
	p.env.Send(SimID(raftID), &AdminMsg{Req: &r})
	return r.ID
}

// Admin sends an operator request to the metadata group's leader as Call
// sends a request to a shard's.
func (p *Probe) Admin(c *Cluster, req *node.AdminRequest, budgetNs int64) (*wire.Answer, error) {
	return p.callLeader(c, node.MetaGroup, func(to uint64) uint64 { return p.SendAdmin(to, req) }, budgetNs)
}

// Take removes and returns the answer to request id, if it arrived.
func (p *Probe) Take(id uint64) (*wire.Answer, bool) {
	a, ok := p.answers[id]
	delete(p.answers, id)
	return a, ok
}

// ProbeAttemptNs is how long Call waits for one attempt's answer before
// sending again (to the then leader). A write retried this way may land
// twice: commits are not idempotent.
const ProbeAttemptNs = 1_000_000_000

// Call sends req to the group's leader, runs the world until an answer
// other than NotLeader arrives, and returns it. Unanswered attempts are
// retried every ProbeAttemptNs; it gives up with an error after budgetNs
// of virtual time.
func (p *Probe) Call(c *Cluster, group uint64, req *wire.Request, budgetNs int64) (*wire.Answer, error) {
	return p.callLeader(c, group, func(to uint64) uint64 { return p.Send(to, req) }, budgetNs)
}

// callLeader sends to group's leader until an answer other than NotLeader.
func (p *Probe) callLeader(c *Cluster, group uint64, send func(to uint64) uint64, budgetNs int64) (*wire.Answer, error) {
	end := c.World.NowNs() + budgetNs
	for c.World.NowNs() < end {
		to, ok := c.Leader(group)
		if !ok {
			c.World.RunFor(c.cfg.TickNs)
			continue
		}
		id := send(to)
		var ans *wire.Answer
		err := c.World.RunUntil(func() (bool, string) {
			a, ok := p.Take(id)
			ans = a
			return ok, fmt.Sprintf("answer to request %d from broker %d", id, to)
		}, min(ProbeAttemptNs, end-c.World.NowNs()))
		if err != nil {
			continue
		}
		if e, ok := ans.Body.(*wire.Error); ok && e.Code == wire.CodeNotLeader {
			c.World.RunFor(c.cfg.TickNs)
			continue
		}
		return ans, nil
	}
	return nil, fmt.Errorf("probe: no answer within %d ns", budgetNs)
}
