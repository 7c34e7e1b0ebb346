package properties

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// HistoryKind is the kind of one client operation in a history; the zero
// value is invalid.
type HistoryKind uint8

// History operation kinds, one per client call.
const (
	historyKindInvalid HistoryKind = iota
	HistoryCommit
	HistoryCommitIf
	HistoryPublish
	HistoryPublishIf
	HistoryEnqueue
	HistoryStateGet
	HistorySubscribe
	HistoryGroupFetch
	HistoryGroupAck
	// HistoryLivePublish is a publish to an ephemeral stream: its leader
	// hands it to the subscribers live then and writes nothing (answered
	// Acked, no offset). It carries a record but is no write.
	HistoryLivePublish
	// HistoryLiveRead is a live subscriber's read of an ephemeral stream's
	// shard: the publishes its leader queued for it since its last read.
	HistoryLiveRead
	historyKindEnd
)

var historyKindNames = [...]string{"invalid", "commit", "commit_if", "publish", "publish_if", "enqueue",
	"state_get", "subscribe", "group_fetch", "group_ack", "live_publish", "live_read"}

// String names the kind as the history encoding spells it.
func (k HistoryKind) String() string {
	if k < historyKindEnd {
		return historyKindNames[k]
	}
	return fmt.Sprintf("HistoryKind(%d)", uint8(k))
}

// IsWrite reports whether the kind appends a record to a shard's log.
func (k HistoryKind) IsWrite() bool {
	switch k {
	case HistoryCommit, HistoryCommitIf, HistoryPublish, HistoryPublishIf, HistoryEnqueue:
		return true
	}
	return false
}

// CarriesRecord reports whether an operation of the kind sends a record
// (and names its requests): every write, and a live publish, which writes
// none.
func (k HistoryKind) CarriesRecord() bool { return k.IsWrite() || k == HistoryLivePublish }

// RecordsRequests reports whether a sent operation of the kind names its
// requests (HistoryOp.Requests): every kind that carries a record, and the
// calls whose answers the contract checks judge per copy: group fetches
// and acks (AnswersHonest), live reads (EphemeralLiveComplete).
func (k HistoryKind) RecordsRequests() bool {
	return k.CarriesRecord() || k == HistoryGroupFetch || k == HistoryGroupAck || k == HistoryLiveRead
}

// IsConditional reports whether the kind is commit_if or publish_if.
func (k HistoryKind) IsConditional() bool { return k == HistoryCommitIf || k == HistoryPublishIf }

// MarshalText spells the kind; an invalid kind is refused.
func (k HistoryKind) MarshalText() ([]byte, error) {
	if k == historyKindInvalid || k >= historyKindEnd {
		return nil, fmt.Errorf("history kind %d refused: not a valid kind", uint8(k))
	}
	return []byte(historyKindNames[k]), nil
}

// UnmarshalText reads a kind name.
func (k *HistoryKind) UnmarshalText(b []byte) error {
	for i := HistoryKind(1); i < historyKindEnd; i++ {
		if historyKindNames[i] == string(b) {
			*k = i
			return nil
		}
	}
	return fmt.Errorf("history kind %q refused: unknown", b)
}

// HistoryOutcome is how an operation completed; the zero value is invalid.
type HistoryOutcome uint8

// Outcomes. Unknown is never a pass: a write whose answer was lost may or
// may not have landed (and may land twice if retried).
const (
	outcomeInvalid HistoryOutcome = iota
	// OutcomeOK: the call succeeded (a conditional write was written).
	OutcomeOK
	// OutcomeRefused: a conditional write was refused with the true tail.
	OutcomeRefused
	// OutcomeFailed: the call certainly had no effect (refused before
	// sending, or a broker refusal that every copy of the request meets;
	// FailedWriteLeftNoTrace checks it).
	OutcomeFailed
	// OutcomeUnknown: no usable answer came; a write may have landed.
	OutcomeUnknown
	// OutcomePending: the call had not completed when the history was taken.
	OutcomePending
	outcomeEnd
)

var outcomeNames = [...]string{"invalid", "ok", "refused", "failed", "unknown", "pending"}

// String names the outcome as the history encoding spells it.
func (o HistoryOutcome) String() string {
	if o < outcomeEnd {
		return outcomeNames[o]
	}
	return fmt.Sprintf("HistoryOutcome(%d)", uint8(o))
}

// MarshalText spells the outcome; an invalid outcome is refused.
func (o HistoryOutcome) MarshalText() ([]byte, error) {
	if o == outcomeInvalid || o >= outcomeEnd {
		return nil, fmt.Errorf("history outcome %d refused: not a valid outcome", uint8(o))
	}
	return []byte(outcomeNames[o]), nil
}

// UnmarshalText reads an outcome name.
func (o *HistoryOutcome) UnmarshalText(b []byte) error {
	for i := HistoryOutcome(1); i < outcomeEnd; i++ {
		if outcomeNames[i] == string(b) {
			*o = i
			return nil
		}
	}
	return fmt.Errorf("history outcome %q refused: unknown", b)
}

// HistoryOp is one client operation: what was asked, when, and how it
// ended. Fields a kind does not use stay zero. Its scope, record and read
// entries are felix's types; the history's JSON form (field names, an
// enqueue flag for the event kind, a delete flag for the operation kind)
// lives in the codec (history_codec.go).
type HistoryOp struct {
	// ID is unique in the history, ascending in invocation order.
	ID uint64
	// Client is the workload client that issued the call.
	Client int
	// RetryOf links a re-sent write to the operation whose outcome was
	// unknown (0: not a retry); both may land.
	RetryOf   uint64
	Kind      HistoryKind
	Scope     felix.Scope
	EntityKey string
	// Record is a write's (or a live publish's) record: one event and its
	// state operations; a conditional write's record is Conditional and
	// carries its ExpectedOffset, an unconditional one carries neither.
	Record *felix.Record
	// Key is a state_get's key.
	Key string
	// FromOffset and MaxEntries are a subscribe read's window.
	FromOffset uint64
	MaxEntries uint32
	// Group names a consumer group; AckOffset is a group ack's offset.
	Group     string
	AckOffset uint64
	// LeaseNs is a group fetch's lease as asked; LeaseExpiryNs is the
	// expiry its answer reported for every record it handed out (0: no
	// answer): the proposing broker's clock at the fetch plus LeaseNs.
	LeaseNs, LeaseExpiryNs int64
	// InvokeNs and CompleteNs are simulated times; CompleteNs is 0 while pending.
	InvokeNs   int64
	CompleteNs int64
	Outcome    HistoryOutcome
	// Offset is where an ok write landed; Tail is a refusal's true tail.
	Offset uint64
	Tail   uint64
	// Found, Value and Version are a state_get's answer.
	Found   bool
	Value   []byte
	Version uint64
	// Entries are what a subscribe read, live read or group fetch returned, each a
	// record at its offset without its condition (Conditional false,
	// ExpectedOffset 0: the encoding does not carry a read record's
	// condition). A replica's log entry is a ViewEntry.
	Entries []felix.Entry
	// Error is the failure's message for failed and unknown outcomes.
	Error string
	// NotSent marks a call the client refused before sending anything
	// (validation, such as NotOnOwningShard, or a full pending table).
	NotSent bool
	// Requests are a sent call's requests (its attempts), for the kinds
	// that record them (HistoryKind.RecordsRequests): the one its call
	// sent first, then one per NotLeader redirect, each with the broker it
	// went to, what that broker answered and the copies of it the network
	// delivered to a broker. Nil when not recorded; the checks that match
	// requests by id (a Ledger) then leave the call unjudged.
	Requests []HistoryRequest
}

// HistoryRequest is one request (attempt) a write's call sent: its id,
// the broker it went to, what that broker answered, and how many copies
// of it reached a broker: network duplicates each count, a copy lost or
// dropped at a down broker does not. The counts are taken at the
// brokers' doors, never from what a broker did with a copy. A call is
// its HistoryOp (Client and ID name it); its requests are its attempts.
type HistoryRequest struct {
	// ID is the request id, unique per client: the id the request carried
	// on the wire and the brokers' abstract trace names it by.
	ID uint64
	// Broker is the broker the request was sent to, as the client names
	// it (a broker slot's first raft id); 0 when not recorded.
	Broker uint64
	// Answer is what that broker answered as the client took it.
	Answer HistoryAnswer
	// Delivered is the number of copies delivered to any broker.
	Delivered uint32
}

// HistoryRequestsOf is the record of a write's requests (sent: each
// with its id, broker and answer), each given the copies delivered says
// reached a broker; nil when there are none or delivered cannot count
// one of them (its tally overflowed).
func HistoryRequestsOf(sent []HistoryRequest, delivered func(id uint64) (copies uint32, known bool)) []HistoryRequest {
	if len(sent) == 0 {
		return nil
	}
	out := make([]HistoryRequest, 0, len(sent))
	for _, q := range sent {
		n, ok := delivered(q.ID)
		if !ok {
			return nil
		}
		q.Delivered = n
		out = append(out, q)
	}
	return out
}

// History is every operation of a run, in invocation order.
type History struct {
	Ops []HistoryOp
}

// HistoryCounts tallies a history's operations by outcome.
type HistoryCounts struct {
	Total, OK, Refused, Failed, Unknown, Pending int
}

// Counts tallies the history's outcomes.
func (h *History) Counts() HistoryCounts {
	var c HistoryCounts
	for i := range h.Ops {
		c.Total++
		switch h.Ops[i].Outcome {
		case OutcomeOK:
			c.OK++
		case OutcomeRefused:
			c.Refused++
		case OutcomeFailed:
			c.Failed++
		case OutcomeUnknown:
			c.Unknown++
		case OutcomePending:
			c.Pending++
		}
	}
	return c
}
