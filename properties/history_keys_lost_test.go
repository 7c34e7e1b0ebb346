package properties

import (
	"strings"
	"testing"
)

// TestHistoryKeysLost: over fixtureLog (order-1 put at 0 and 2, cart-1
// put at 1 and deleted at 2), a window that retention cut to [3, 4) with
// the state it implies loses order-1 to retention and nothing otherwise
// (cart-1 was deleted); the full window loses nothing; a state missing
// order-1 while its last write is retained, or a window past the
// acknowledged put with no record touching it, is a key lost otherwise,
// a CommittedNeverLost violation naming the key.
func TestHistoryKeysLost(t *testing.T) {
	h := fixtureHistory()
	full := linRef()
	full.Scopes[0].State = []ViewSlot{{Key: "order-1", Value: "shipped", Version: 2}}
	if got := HistoryKeysLost(h, full); got.Retention != 0 || got.Other != 0 || got.Err() != nil {
		t.Fatalf("full window: %+v %v, want nothing lost", got, got.Err())
	}
	cut := retainedRef(3)
	if got := HistoryKeysLost(h, cut); got.Retention != 1 || got.Other != 0 || got.Err() != nil {
		t.Fatalf("window [3, 4): %+v %v, want order-1 lost to retention", got, got.Err())
	}
	broken := linRef() // order-1's last write (offset 2) is retained, but the state lacks it
	got := HistoryKeysLost(h, broken)
	if got.Other != 1 || got.Err() == nil || !strings.Contains(got.Err().Error(), `key "order-1"`) || !strings.HasPrefix(got.Err().Error(), string(InvariantCommittedNeverLost)) {
		t.Fatalf("state without order-1: %+v %v, want order-1 lost otherwise", got, got.Err())
	}
	gone := retainedRef(3)
	gone.Scopes[0].Log[0].Ops = []ViewOp{{Key: "order-1", Value: "returned"}} // rewritten at 3, yet absent
	if got := HistoryKeysLost(h, gone); got.Other != 1 || got.Retention != 0 {
		t.Fatalf("key rewritten in the window but absent: %+v, want lost otherwise", got)
	}
}
