package logstore

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// ErrInvalidBatch marks a batch refused for its shape or because it
// contradicts what the store holds; nothing of it was written.
var ErrInvalidBatch = errors.New("logstore: invalid batch")

// validateShape checks every row on its own: scopes, records, kinds and
// sizes. It does not look at the store.
func validateShape(b *Batch) error {
	if err := validateGroups(b.Groups); err != nil {
		return err
	}
	for i := range b.Log {
		r := &b.Log[i]
		if err := r.Scope.Validate(); err != nil {
			return fmt.Errorf("%w: log row %d: %v", ErrInvalidBatch, i, err)
		}
		if err := r.Record.Validate(); err != nil {
			return fmt.Errorf("%w: log row %d at %s offset %d: %v", ErrInvalidBatch, i, r.Scope, r.Offset, err)
		}
		if !r.Record.Conditional && r.Record.ExpectedOffset != 0 {
			return fmt.Errorf("%w: log row %d at %s offset %d: unconditional record carries expected offset %d",
				ErrInvalidBatch, i, r.Scope, r.Offset, r.Record.ExpectedOffset)
		}
	}
	for i := range b.State {
		if err := validateStateRow(&b.State[i]); err != nil {
			return fmt.Errorf("%w: state row %d: %v", ErrInvalidBatch, i, err)
		}
	}
	for i := range b.Positions {
		r := &b.Positions[i]
		if err := r.Scope.Validate(); err != nil {
			return fmt.Errorf("%w: position row %d: %v", ErrInvalidBatch, i, err)
		}
		if r.Position.FirstOffset > r.Position.NextOffset {
			return fmt.Errorf("%w: position row %d at %s: first offset %d is past next offset %d",
				ErrInvalidBatch, i, r.Scope, r.Position.FirstOffset, r.Position.NextOffset)
		}
	}
	for i := range b.Outbox {
		if err := validateOutboxRow(&b.Outbox[i]); err != nil {
			return fmt.Errorf("%w: outbox row %d: %v", ErrInvalidBatch, i, err)
		}
	}
	for i := range b.ConsumerGroups {
		if err := validateConsumerGroupRow(&b.ConsumerGroups[i]); err != nil {
			return fmt.Errorf("%w: consumer group row %d: %v", ErrInvalidBatch, i, err)
		}
	}
	return nil
}

func validateGroups(gs []GroupWrite) error {
	seen := make(map[uint64]bool, len(gs))
	for i := range gs {
		g := &gs[i]
		if g.Group == 0 {
			return fmt.Errorf("%w: group write %d names group 0", ErrInvalidBatch, i)
		}
		if seen[g.Group] {
			return fmt.Errorf("%w: group %d written twice in one batch", ErrInvalidBatch, g.Group)
		}
		seen[g.Group] = true
		for j, e := range g.Entries {
			if e == nil {
				return fmt.Errorf("%w: group %d entry %d is nil", ErrInvalidBatch, g.Group, j)
			}
			if j > 0 && e.GetIndex() != g.Entries[j-1].GetIndex()+1 {
				return fmt.Errorf("%w: group %d entry %d has index %d after %d: entries must be consecutive",
					ErrInvalidBatch, g.Group, j, e.GetIndex(), g.Entries[j-1].GetIndex())
			}
		}
		if len(g.Entries) > 0 && g.Entries[0].GetIndex() == 0 {
			return fmt.Errorf("%w: group %d appends an entry at index 0", ErrInvalidBatch, g.Group)
		}
		if g.Compact != nil && g.Compact.Snapshot == nil {
			return fmt.Errorf("%w: group %d compaction carries no snapshot", ErrInvalidBatch, g.Group)
		}
	}
	return nil
}

func validateStateRow(r *StateRow) error {
	if err := r.Scope.Validate(); err != nil {
		return err
	}
	if r.Key == "" || len(r.Key) > felix.KeyLenMax {
		return fmt.Errorf("key of %d bytes is empty or exceeds %d", len(r.Key), felix.KeyLenMax)
	}
	switch r.Kind {
	case WritePut:
		if len(r.Value) > felix.ValueLenMax {
			return fmt.Errorf("value of %d bytes exceeds %d", len(r.Value), felix.ValueLenMax)
		}
	case WriteDelete:
		if len(r.Value) != 0 || r.Version != 0 {
			return fmt.Errorf("delete of %q carries a value or version", r.Key)
		}
	default:
		return fmt.Errorf("unknown write kind %d", r.Kind)
	}
	return nil
}

func validateOutboxRow(r *OutboxRow) error {
	if err := r.Scope.Validate(); err != nil {
		return err
	}
	switch r.Kind {
	case WritePut:
		if r.Intent.Event != felix.EventPublish && r.Intent.Event != felix.EventEnqueue {
			return fmt.Errorf("intent at offset %d has event kind %d", r.Offset, r.Intent.Event)
		}
		if len(r.Intent.Data) > IntentDataLenMax {
			return fmt.Errorf("intent data of %d bytes exceeds %d", len(r.Intent.Data), IntentDataLenMax)
		}
	case WriteDelete:
		if r.Intent.Event != felix.EventInvalid || len(r.Intent.Data) != 0 {
			return fmt.Errorf("delete at offset %d carries an intent", r.Offset)
		}
	default:
		return fmt.Errorf("unknown write kind %d", r.Kind)
	}
	return nil
}

// validateConsumerGroupRow checks a consumer-group row's shape; whether its
// position and leases make sense for the scope's log is the state
// machine's to judge when it restores the group.
func validateConsumerGroupRow(r *ConsumerGroupRow) error {
	if err := r.Scope.Validate(); err != nil {
		return err
	}
	g := &r.Group
	if g.Name == "" || len(g.Name) > statemachine.GroupNameLenMax {
		return fmt.Errorf("consumer group name of %d bytes is empty or exceeds %d", len(g.Name), statemachine.GroupNameLenMax)
	}
	if len(g.Leases) > statemachine.LeasesPerGroupCap {
		return fmt.Errorf("consumer group %q holds %d leases, more than %d", g.Name, len(g.Leases), statemachine.LeasesPerGroupCap)
	}
	return nil
}
