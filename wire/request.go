package wire

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// RequestKind names the operation a request asks a broker for.
type RequestKind uint8

// Request kinds, as written on the wire. The zero value is invalid.
const (
	RequestInvalid RequestKind = iota
	RequestPublish
	RequestPublishIf
	RequestEnqueue
	RequestCommit
	RequestCommitIf
	RequestStateGet
	RequestSubscribeRead
	RequestGroupFetch
	RequestGroupAck
	RequestOutboxRead
	RequestOutboxTrim
	requestKindEnd
)

// String names the request kind.
func (k RequestKind) String() string {
	switch k {
	case RequestPublish:
		return "publish"
	case RequestPublishIf:
		return "publish_if"
	case RequestEnqueue:
		return "enqueue"
	case RequestCommit:
		return "commit"
	case RequestCommitIf:
		return "commit_if"
	case RequestStateGet:
		return "state_get"
	case RequestSubscribeRead:
		return "subscribe_read"
	case RequestGroupFetch:
		return "group_fetch"
	case RequestGroupAck:
		return "group_ack"
	case RequestOutboxRead:
		return "outbox_read"
	case RequestOutboxTrim:
		return "outbox_trim"
	}
	return fmt.Sprintf("RequestKind(%d)", uint8(k))
}

// Limits on request fields beyond the statemachine's record limits.
const (
	// GroupNameLenMax is the longest consumer-group name, in bytes.
	GroupNameLenMax = felix.NameLenMax
	// ReadEntriesMax is the most entries one subscribe read or group fetch
	// may ask for; a broker answers with at most this many.
	ReadEntriesMax = 1024
)

// Request is one client→broker message: a caller-chosen id that the answer
// echoes, the stream shard it concerns, and the operation.
type Request struct {
	ID    uint64
	Scope felix.Scope
	// Body is one of *Publish, *PublishIf, *Enqueue, *Commit, *CommitIf,
	// *StateGet, *SubscribeRead, *GroupFetch, *GroupAck, *OutboxRead,
	// *OutboxTrim.
	Body RequestBody
}

// RequestBody is the operation a Request carries.
type RequestBody interface {
	// Kind is the wire tag of the operation.
	Kind() RequestKind
}

// Publish asks for an unconditional publish: a record with a publish event and no state operations.
type Publish struct{ Record felix.Record }

// PublishIf asks for a publish written only at Record.ExpectedOffset.
type PublishIf struct{ Record felix.Record }

// Enqueue asks for an unconditional enqueue: a record with an enqueue event and no state operations.
type Enqueue struct{ Record felix.Record }

// Commit asks for an unconditional commit: one event plus zero or more state operations.
type Commit struct{ Record felix.Record }

// CommitIf asks for a commit written only at Record.ExpectedOffset.
type CommitIf struct{ Record felix.Record }

// StateGet asks for the value and version of one key of the stream's keyed state.
type StateGet struct{ Key string }

// SubscribeRead asks for up to MaxEntries committed entries from FromOffset on.
type SubscribeRead struct {
	FromOffset uint64
	MaxEntries uint32
}

// GroupFetch asks for up to MaxEntries records as work for Group, leased for LeaseNs.
type GroupFetch struct {
	Group      string
	MaxEntries uint32
	LeaseNs    uint64
}

// GroupAck reports the record at Offset done for Group.
type GroupAck struct {
	Group  string
	Offset uint64
}

// OutboxRead asks for up to MaxEntries of the scope's outbox entries
// (committed records' events not yet trimmed) from FromOffset on, in
// offset order: a relay's read.
type OutboxRead struct {
	FromOffset uint64
	MaxEntries uint32
}

// OutboxTrim confirms the scope's outbox entries up to and including
// ThroughOffset delivered downstream, so every replica drops them.
type OutboxTrim struct {
	ThroughOffset uint64
}

// Kind is RequestPublish.
func (*Publish) Kind() RequestKind { return RequestPublish }

// Kind is RequestPublishIf.
func (*PublishIf) Kind() RequestKind { return RequestPublishIf }

// Kind is RequestEnqueue.
func (*Enqueue) Kind() RequestKind { return RequestEnqueue }

// Kind is RequestCommit.
func (*Commit) Kind() RequestKind { return RequestCommit }

// Kind is RequestCommitIf.
func (*CommitIf) Kind() RequestKind { return RequestCommitIf }

// Kind is RequestStateGet.
func (*StateGet) Kind() RequestKind { return RequestStateGet }

// Kind is RequestSubscribeRead.
func (*SubscribeRead) Kind() RequestKind { return RequestSubscribeRead }

// Kind is RequestGroupFetch.
func (*GroupFetch) Kind() RequestKind { return RequestGroupFetch }

// Kind is RequestGroupAck.
func (*GroupAck) Kind() RequestKind { return RequestGroupAck }

// Kind is RequestOutboxRead.
func (*OutboxRead) Kind() RequestKind { return RequestOutboxRead }

// Kind is RequestOutboxTrim.
func (*OutboxTrim) Kind() RequestKind { return RequestOutboxTrim }

// RecordOf returns the record a write request carries, or nil for reads.
func RecordOf(body RequestBody) *felix.Record {
	switch b := body.(type) {
	case *Publish:
		return &b.Record
	case *PublishIf:
		return &b.Record
	case *Enqueue:
		return &b.Record
	case *Commit:
		return &b.Record
	case *CommitIf:
		return &b.Record
	}
	return nil
}
