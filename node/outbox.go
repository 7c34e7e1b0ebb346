package node

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// The outbox: every written record adds an outbox row at (scope, offset)
// holding its event (kind and payload), in the same store commit as its
// log and state rows. A relay reads a scope's rows in offset order
// (OutboxRead, served by the shard's leader from its store, so only what
// is applied and durable, never an uncommitted entry) and, once it has
// delivered them downstream and recorded its position, confirms them
// (OutboxTrim). A trim is a raft command: every replica deletes the same
// rows at the same log position. A scope's rows are always the offsets
// [outbox start, next offset): writes add at the tail, trims drop a prefix.

// outboxIntent is the outbox row a written record adds: its event.
func outboxIntent(rec *felix.Record) *logstore.Intent {
	return &logstore.Intent{Event: rec.Event, Data: rec.Payload}
}

// outboxRead serves a relay's read of tenant's outbox in group g from the
// store: the rows at offsets >= from, at most entriesMax, each as an entry
// whose record carries the event alone.
func (n *Node) outboxRead(g *raftGroup, tenant string, b *wire.OutboxRead) wire.AnswerBody {
	rows := n.store.OutboxRange(n.outboxKey(g.scopeOf(tenant)), n.outboxReadFrom(g, tenant, b.FromOffset), int(b.MaxEntries))
	out := &wire.Entries{Entries: make([]felix.Entry, len(rows))}
	for i, r := range rows {
		out.Entries[i] = felix.Entry{Offset: r.Offset, Record: felix.Record{Event: r.Intent.Event, Payload: r.Intent.Data}}
	}
	return out
}

// applyOutboxTrim deletes tenant's outbox rows from its outbox start
// through offset through (never past the scope's tail) and moves the start.
func (n *Node) applyOutboxTrim(b *logstore.Batch, g *raftGroup, s *statemachine.Shard, c *command) wire.AnswerBody {
	tenant := c.scope.Tenant
	start := g.outboxStart[tenant]
	end := s.NextOffset() // exclusive
	if c.offset < end {
		end = c.offset + 1
	}
	key := n.outboxKey(c.scope)
	for o := start; o < n.trimmedEnd(start, end); o++ {
		b.Outbox = append(b.Outbox, logstore.OutboxRow{Kind: logstore.WriteDelete, Scope: key, Offset: o})
	}
	if end > start {
		if g.outboxStart == nil {
			g.outboxStart = map[string]uint64{}
		}
		g.outboxStart[tenant] = end
	}
	return &wire.Acked{}
}

// recoverOutboxStart sets tenant's outbox start in g from the store: its
// first stored outbox row, or its tail when it has none.
func (n *Node) recoverOutboxStart(g *raftGroup, tenant string, s *statemachine.Shard) {
	start := s.NextOffset()
	if rows := n.store.OutboxRange(n.outboxKey(g.scopeOf(tenant)), 0, 1); len(rows) > 0 {
		start = min(rows[0].Offset, start)
	}
	if start == 0 {
		return
	}
	if g.outboxStart == nil {
		g.outboxStart = map[string]uint64{}
	}
	g.outboxStart[tenant] = start
}
