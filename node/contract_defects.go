package node

import (
	"fmt"

	"github.com/felixsim/felixsim/wire"
)

// ContractDefects are planted bugs in corners of the client contract, each
// the shape of a real mistake, all off by default; the contract checks
// (properties/contract_*.go) must catch every one. Each is read at one
// named hook below, called from one line where the broker does the thing
// the bug gets wrong.
type ContractDefects struct {
	// LeaseUnitSlip hands a fetch's lease to the state machine in the
	// wrong unit (the wire's nanoseconds read as microseconds: a
	// thousandth of the lease) while the answer reports the lease the
	// client asked for: a record is handed out again long before the
	// expiry its consumer was told.
	LeaseUnitSlip bool
	// FailedOnCopyRefusal is a client-library bug carried in the same set
	// (client.ContractDefects.FailedOnCopyRefusal): the simulated clients
	// report a write whose last copy a broker refused as failed, not
	// unknown. The node itself ignores it.
	FailedOnCopyRefusal bool
	// CommandsNotLeaderAfterPropose makes a leader that steps down answer
	// every group fetch, group ack and outbox trim it proposed and has not
	// applied with NotLeader, as NotLeaderAfterPropose does writes: the
	// command may still commit under the next leader (a fetch's records
	// leased to nobody, an ack or a trim applied twice), though NotLeader
	// promised this copy was not proposed.
	CommandsNotLeaderAfterPropose bool
	// OutboxReadFromWindow serves a relay's outbox read from the scope's
	// retained log window when the read starts below it, as a subscribe
	// read is bounded: the rows retention dropped from the log but the
	// outbox keeps until relayed are skipped, and the relay starts past
	// the first record it had not relayed.
	OutboxReadFromWindow bool
	// DeletedStreamTakesWrites refuses a deleted stream's requests at the
	// leader only: a write a leader accepted while the stream was live
	// and that applies after the delete's marker is written all the
	// same, into the deleted generation (then emptied by the create) or
	// into the next one, whatever generation it was accepted in.
	DeletedStreamTakesWrites bool
	// LiveReadWaitsForBatch answers a live subscriber's read of an
	// ephemeral stream only once a full batch (its entry cap) is queued
	// for it: a read that finds fewer answers nothing and keeps the
	// queue, so an empty answer no longer means the subscriber is caught
	// up, and what it is owed comes late, or never if it goes idle.
	LiveReadWaitsForBatch bool
}

// stateLeaseNs is the lease a fetch command's records are leased for in
// the state machine: the command's (under LeaseUnitSlip, a thousandth of
// it, at least 1 ns).
func (n *Node) stateLeaseNs(c *command) int64 {
	if n.cfg.Defects.LeaseUnitSlip {
		return max(c.leaseNs/1000, 1)
	}
	return c.leaseNs
}

// dropCommands is the hook where a node that stops leading g leaves its
// pending commands pending (their proposals may yet commit); under
// CommandsNotLeaderAfterPropose it answers them NotLeader instead.
func (n *Node) dropCommands(g *raftGroup) {
	if !n.cfg.Defects.CommandsNotLeaderAfterPropose {
		return
	}
	for _, w := range n.writes.takeWhere(func(w *pendingWrite) bool { return w.group == g.id && !w.write }) {
		n.answer(w.client, w.reqID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d lost the lead of group %d", n.cfg.ID, g.id), LeaderHint: g.lead})
	}
}

// outboxReadFrom is the offset an outbox read of tenant's scope in g from
// offset from starts at: from (the outbox answers its rows at or above
// it); under OutboxReadFromWindow, no lower than the log's window start.
func (n *Node) outboxReadFrom(g *raftGroup, tenant string, from uint64) uint64 {
	if s := g.lookup(tenant); n.cfg.Defects.OutboxReadFromWindow && s != nil {
		return max(from, s.FirstOffset())
	}
	return from
}

// appliesDeleted is the hook where applying a write in a deleted
// stream's shard group, or in a generation other than the one it was
// accepted in, refuses it: false, unless DeletedStreamTakesWrites lets
// the write through.
func (n *Node) appliesDeleted(c *command) bool {
	return n.cfg.Defects.DeletedStreamTakesWrites && c.kind == cmdWrite
}

// liveRead serves subscriber client's read of at most entriesMax
// publishes from es: es.read, but under LiveReadWaitsForBatch a read that
// finds less than a full batch queued drains nothing (it still registers
// the subscriber and keeps it live).
func (n *Node) liveRead(es *ephemeralScope, client uint64, entriesMax int) wire.AnswerBody {
	if n.cfg.Defects.LiveReadWaitsForBatch && es.queued(client) < entriesMax {
		entriesMax = 0
	}
	return es.read(client, n.ticks, entriesMax)
}
