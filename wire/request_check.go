package wire

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// Validate checks the request the way both the encoder and the decoder do:
// a known body, a valid scope, and a record whose shape fits the kind
// (publish_if and commit_if conditional, the others not; publish and
// enqueue with their own event and no state operations).
func (q *Request) Validate() error {
	if q.Body == nil {
		return errors.New("request has no body")
	}
	if err := q.Scope.Validate(); err != nil {
		return fmt.Errorf("%s request: %w", q.Body.Kind(), err)
	}
	if rec := RecordOf(q.Body); rec != nil {
		return checkWriteRecord(q.Body.Kind(), rec)
	}
	return checkReadBody(q.Body)
}

func checkWriteRecord(kind RequestKind, rec *felix.Record) error {
	if err := rec.Validate(); err != nil {
		return fmt.Errorf("%s request: %w", kind, err)
	}
	wantConditional := kind == RequestPublishIf || kind == RequestCommitIf
	if rec.Conditional != wantConditional {
		return fmt.Errorf("%s request: record conditional flag is %t, must be %t", kind, rec.Conditional, wantConditional)
	}
	if !rec.Conditional && rec.ExpectedOffset != 0 {
		return fmt.Errorf("%s request: unconditional record carries expected offset %d", kind, rec.ExpectedOffset)
	}
	var wantEvent felix.EventKind
	switch kind {
	case RequestPublish, RequestPublishIf:
		wantEvent = felix.EventPublish
	case RequestEnqueue:
		wantEvent = felix.EventEnqueue
	default:
		return nil // commit and commit_if take either event and any operations
	}
	if rec.Event != wantEvent {
		return fmt.Errorf("%s request: record event is %s, must be %s", kind, rec.Event, wantEvent)
	}
	if len(rec.Ops) != 0 {
		return fmt.Errorf("%s request: record carries %d state operations; only commit and commit_if may", kind, len(rec.Ops))
	}
	return nil
}

func checkReadBody(body RequestBody) error {
	switch b := body.(type) {
	case *StateGet:
		if b.Key == "" {
			return errors.New("state_get request: empty key")
		}
		if len(b.Key) > felix.KeyLenMax {
			return fmt.Errorf("state_get request: key of %d bytes exceeds %d", len(b.Key), felix.KeyLenMax)
		}
	case *SubscribeRead:
		return checkMaxEntries("subscribe_read", b.MaxEntries)
	case *GroupFetch:
		if err := checkGroup("group_fetch", b.Group); err != nil {
			return err
		}
		if b.LeaseNs == 0 {
			return errors.New("group_fetch request: lease of 0 ns would expire at once")
		}
		return checkMaxEntries("group_fetch", b.MaxEntries)
	case *GroupAck:
		return checkGroup("group_ack", b.Group)
	case *OutboxRead:
		return checkMaxEntries("outbox_read", b.MaxEntries)
	case *OutboxTrim:
	default:
		return fmt.Errorf("request body %T is not a wire request", body)
	}
	return nil
}

func checkMaxEntries(what string, n uint32) error {
	if n == 0 || n > ReadEntriesMax {
		return fmt.Errorf("%s request: max entries %d is outside 1..%d", what, n, ReadEntriesMax)
	}
	return nil
}

func checkGroup(what, group string) error {
	if group == "" {
		return fmt.Errorf("%s request: empty group name", what)
	}
	if len(group) > GroupNameLenMax {
		return fmt.Errorf("%s request: group name of %d bytes exceeds %d", what, len(group), GroupNameLenMax)
	}
	return nil
}
