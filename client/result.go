package client

import "github.com/felixsim/felixsim/felix"

// Receipt is where an unconditional write landed.
type Receipt struct {
	Offset uint64
	// Ephemeral marks a publish to an ephemeral stream: the live
	// subscribers got it, nothing was written, and Offset is 0.
	Ephemeral bool
}

// ConditionalWrite is the answer to CommitIf or PublishIf: Written or Refused.
type ConditionalWrite interface {
	conditionalWrite()
}

// Written says the conditional write landed at Offset, the expected offset.
type Written struct{ Offset uint64 }

// Refused says the shard's next offset was Tail, not the expected one, and nothing was written.
type Refused struct{ Tail uint64 }

func (Written) conditionalWrite() {}
func (Refused) conditionalWrite() {}

// State is a state_get answer: Found with Value at Version, the offset of the
// commit that wrote it, or not found.
type State struct {
	Found   bool
	Value   []byte
	Version uint64
}

// Deliveries is work handed to a consumer group, leased until LeaseExpiryNs
// on the broker's clock.
type Deliveries struct {
	Entries       []felix.Entry
	LeaseExpiryNs uint64
}
