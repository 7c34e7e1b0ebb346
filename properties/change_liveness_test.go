package properties

import (
	"strings"
	"testing"
)

// TestWritesAckedDuringChange: writes acknowledged within the budget, or
// whose conditions (change in flight, majority connected) broke before
// the budget ran out, pass; a hand-broken record of a write never
// acknowledged (or acknowledged late) while the conditions held for the
// whole budget fails LivenessDuringChange; malformed records and budgets
// are refused as input.
func TestWritesAckedDuringChange(t *testing.T) {
	const budget = 1000
	good := []ChangeWrite{
		{Group: 2, SentNs: 100, AckedNs: 300, HeldUntilNs: 200},
		{Group: 2, SentNs: 400, AckedNs: 1400, HeldUntilNs: 1300},  // exactly at the budget
		{Group: 3, SentNs: 100, HeldUntilNs: 900},                  // conditions broke first
		{Group: 3, SentNs: 1000, AckedNs: 2500, HeldUntilNs: 1500}, // late, but the majority was cut at 1500
	}
	if err := WritesAckedDuringChange(good, budget); err != nil {
		t.Fatalf("writes acknowledged in time or no longer judged: %v", err)
	}
	for _, tc := range []struct {
		name string
		w    ChangeWrite
		says string
	}{
		{"never acknowledged, conditions held past the budget", ChangeWrite{Group: 4, SentNs: 100, HeldUntilNs: 1100}, "never acknowledged"},
		{"acknowledged late, conditions held", ChangeWrite{Group: 4, SentNs: 100, AckedNs: 1200, HeldUntilNs: 1150}, "acknowledged only after 1100 ns"},
	} {
		err := WritesAckedDuringChange(append(append([]ChangeWrite(nil), good...), tc.w), budget)
		if err == nil || !strings.HasPrefix(err.Error(), string(InvariantLivenessDuringChange)+":") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want a LivenessDuringChange violation saying %q", tc.name, err, tc.says)
		}
	}
	for _, tc := range []struct {
		name   string
		ws     []ChangeWrite
		budget int64
	}{
		{"acknowledged before it was sent", []ChangeWrite{{Group: 2, SentNs: 100, AckedNs: 50, HeldUntilNs: 100}}, budget},
		{"held before it was sent", []ChangeWrite{{Group: 2, SentNs: 100, HeldUntilNs: 50}}, budget},
		{"no budget", good, 0},
	} {
		if err := WritesAckedDuringChange(tc.ws, tc.budget); err == nil || strings.HasPrefix(err.Error(), string(InvariantLivenessDuringChange)) {
			t.Errorf("%s: got %v, want an input refusal", tc.name, err)
		}
	}
}
