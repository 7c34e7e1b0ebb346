package modeltrace

import "fmt"

// The enums travel by name in the ndjson export.

// MarshalText names the kind.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	*k = v
	return err
}

// MarshalText names the outcome.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	for v := OutcomeNone; v < outcomeEnd; v++ {
		if outcomeNames[v] == string(b) {
			*o = v
			return nil
		}
	}
	return fmt.Errorf("outcome %q refused: unknown", b)
}

// MarshalText names the commit kind.
func (k CommitKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a commit kind's name.
func (k *CommitKind) UnmarshalText(b []byte) error {
	for v := KindPublish; v < commitKindEnd; v++ {
		if commitKindNames[v] == string(b) {
			*k = v
			return nil
		}
	}
	return fmt.Errorf("commit kind %q refused: unknown", b)
}

// MarshalText names the change type.
func (c ChangeType) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a change type's name.
func (c *ChangeType) UnmarshalText(b []byte) error {
	v, err := ParseChangeType(string(b))
	*c = v
	return err
}
