package timeline

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/sim/runner"
)

// The page numbers brokers one way everywhere: broker N is the broker
// slot the world runs as sim node N-1, which raft knows as id N until a
// replaced disk makes it rejoin under a new raft id (Result.Replaced
// lists each new identity with its slot). A row, a fault's label, a
// leadership term and a violation's broker all go through numbering, so
// the name a label prints is the name of the row the thing is drawn on.

// RelayLane names the outbox relay's lane: its kills and restarts, and
// the faults that strike it.
const RelayLane = "outbox relay"

// NetworkLane names the lane of the faults not aimed at one node: cuts
// (also drawn on the nodes they cut), every link's settings, healnet and
// calm, the operator's cluster-wide actions.
const NetworkLane = "cluster-wide"

// numbering maps the world's nodes and raft ids to the page's lanes:
// broker slot b (node b) to lane b, the outbox relay (the runner's last
// node) to the lane after the brokers, the cluster-wide lane after it. The
// clients and the liveness probe are fault exempt and have no process
// lane (the clients' lanes hold their operations).
type numbering struct {
	brokers int
	relay   int // the relay's node
	// slotOf maps a replacement identity's raft id to its slot.
	slotOf map[uint64]int
}

func newNumbering(res *runner.Result) numbering {
	n := numbering{brokers: res.Options.Brokers, relay: runner.WorldNodes(res.Options) - 1, slotOf: map[uint64]int{}}
	for _, r := range res.Replaced {
		if r.Slot >= 0 && r.Slot < n.brokers {
			n.slotOf[r.New] = r.Slot
		}
	}
	return n
}

// relayLane and networkLane are the lane indices after the brokers'.
func (n numbering) relayLane() int   { return n.brokers }
func (n numbering) networkLane() int { return n.brokers + 1 }

// laneNames are the process lanes' names, in lane order.
func (n numbering) laneNames() []string {
	out := make([]string, 0, n.brokers+2)
	for b := range n.brokers {
		out = append(out, brokerName(b))
	}
	return append(out, RelayLane, NetworkLane)
}

// brokerName is slot b's row name.
func brokerName(b int) string { return fmt.Sprintf("broker %d", b+1) }

// lane is node's process lane, or -1 for a node without one.
func (n numbering) lane(node int) int {
	switch {
	case node >= 0 && node < n.brokers:
		return node
	case node == n.relay:
		return n.relayLane()
	}
	return -1
}

// nodeName is what a label calls node: its lane's name, or "node N"
// (the world's id) for a node without a lane.
func (n numbering) nodeName(node int) string {
	if l := n.lane(node); l >= 0 {
		return n.laneNames()[l]
	}
	return fmt.Sprintf("node %d", node)
}

// slotOfRaftID is the broker slot that ran under raft id id: N-1 for the
// first identities, the replacement's slot for a later one.
func (n numbering) slotOfRaftID(id uint64) (int, bool) {
	if id >= 1 && id <= uint64(n.brokers) {
		return int(id - 1), true
	}
	s, ok := n.slotOf[id]
	return s, ok
}

// raftIDName names a broker a message knows by raft id as its row does
// ("broker 2", or "broker 2 (raft id 9)" for a later identity).
func (n numbering) raftIDName(id uint64) string {
	s, ok := n.slotOfRaftID(id)
	switch {
	case !ok:
		return fmt.Sprintf("raft id %d (no broker row)", id)
	case id == uint64(s+1):
		return brokerName(s)
	}
	return fmt.Sprintf("%s (raft id %d)", brokerName(s), id)
}

// identities says, for each broker that rejoined under a new raft id,
// which ids it ran under and from when.
func identities(res *runner.Result, n numbering) []string {
	var out []string
	for b := range n.brokers {
		ids := []string{fmt.Sprintf("%d", b+1)}
		for _, r := range res.Replaced {
			if r.Slot == b {
				ids = append(ids, fmt.Sprintf("%d from %s", r.New, secs(r.AtNs)))
			}
		}
		if len(ids) > 1 {
			out = append(out, fmt.Sprintf("%s ran as raft id %s", brokerName(b), strings.Join(ids, ", then ")))
		}
	}
	return out
}
