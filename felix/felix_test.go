package felix

import (
	"errors"
	"strings"
	"testing"
)

func TestScopeValidateRefusesSeparator(t *testing.T) {
	ok := Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 3}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid scope refused: %v", err)
	}
	for name, bad := range map[string]Scope{
		"separator": {Tenant: "acme", Namespace: "a/b", Stream: "s"},
		"empty":     {Tenant: "acme", Namespace: "orders"},
		"too long":  {Tenant: strings.Repeat("t", NameLenMax+1), Namespace: "n", Stream: "s"},
	} {
		if err := bad.Validate(); !errors.Is(err, ErrInvalidScope) {
			t.Errorf("%s: got %v, want ErrInvalidScope", name, err)
		}
	}
	if ok.String() != "acme/orders/order-events/3" {
		t.Fatalf("String = %q", ok.String())
	}
}

// TestScopeLess: tenant, then namespace, stream and shard decide, in that
// order (the orders are written out by hand, not derived from Less).
func TestScopeLess(t *testing.T) {
	sorted := []Scope{
		{Tenant: "a", Namespace: "z", Stream: "z", Shard: 9},
		{Tenant: "b", Namespace: "a", Stream: "z", Shard: 9},
		{Tenant: "b", Namespace: "b", Stream: "a", Shard: 9},
		{Tenant: "b", Namespace: "b", Stream: "b", Shard: 0},
		{Tenant: "b", Namespace: "b", Stream: "b", Shard: 1},
	}
	for i := range sorted {
		for j := range sorted {
			if got := sorted[i].Less(sorted[j]); got != (i < j) {
				t.Errorf("%s < %s = %t, want %t", sorted[i], sorted[j], got, i < j)
			}
		}
	}
}

func TestRecordValidate(t *testing.T) {
	good := Record{Event: EventEnqueue, Payload: []byte("p"), Ops: []StateOp{{Kind: OpPut, Key: "k", Value: []byte("v")}, {Kind: OpDelete, Key: "k"}}}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid record refused: %v", err)
	}
	for name, r := range map[string]Record{
		"no event":        {Payload: []byte("p")},
		"empty key":       {Event: EventPublish, Ops: []StateOp{{Kind: OpPut}}},
		"delete w/ value": {Event: EventPublish, Ops: []StateOp{{Kind: OpDelete, Key: "k", Value: []byte("v")}}},
		"unknown op":      {Event: EventPublish, Ops: []StateOp{{Kind: OpKind(9), Key: "k"}}},
		"payload":         {Event: EventPublish, Payload: make([]byte, PayloadLenMax+1)},
		"key":             {Event: EventPublish, Ops: []StateOp{{Kind: OpDelete, Key: strings.Repeat("k", KeyLenMax+1)}}},
		"too many ops":    {Event: EventPublish, Ops: make([]StateOp, OpsPerRecordMax+1)},
	} {
		if err := r.Validate(); !errors.Is(err, ErrInvalidRecord) {
			t.Errorf("%s: got %v, want ErrInvalidRecord", name, err)
		}
	}
}
