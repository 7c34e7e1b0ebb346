package runner

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// TestNewViolationRefusesUnregisteredName: a violation naming an invariant
// the registry does not hold is a programmer error and panics, naming it.
func TestNewViolationRefusesUnregisteredName(t *testing.T) {
	if v := newViolation(properties.InvariantQuiesce, "late"); v.Invariant != properties.InvariantQuiesce || v.Message != "late" {
		t.Fatalf("newViolation = %+v", v)
	}
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(fmt.Sprint(p), `"MonotonicReads" refused: not in the registry`) {
			t.Fatalf("panic = %v, want a refusal of the unregistered name", p)
		}
	}()
	newViolation("MonotonicReads", "planted")
}

// TestHistoryChecksAreRegisteredOnce: every history check reports its own
// registered safety invariant (two checks under one name, as
// LinearizableRead once labelled the monotonic-read check too, would hide
// which one failed).
func TestHistoryChecksAreRegisteredOnce(t *testing.T) {
	seen := map[properties.InvariantName]bool{}
	for _, c := range historyChecks {
		inv, err := properties.LookupInvariant(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if inv.Family != properties.FamilySafety || seen[c.name] {
			t.Errorf("history check %s: family %s, already listed %v", string(c.name), inv.Family, seen[c.name])
		}
		seen[c.name] = true
	}
}

// TestUnregisteredCheckNameIsCaught: a history check planted under a name
// the registry does not hold never reaches the result under that name: the
// run reports a Crash (no verdict) whose message names the refusal.
func TestUnregisteredCheckNameIsCaught(t *testing.T) {
	saved := historyChecks
	defer func() { historyChecks = saved }()
	historyChecks = append(append([]historyCheck(nil), saved...), historyCheck{name: "NoSuchInvariant",
		fn: func(p *historyPart) error {
			if p.part.Scopes != nil && !p.part.Ledger {
				return nil // one part finds it: a plain error merges from one part only
			}
			return errors.New("planted")
		}})
	res, err := Run(Options{Seed: 3, DurationNs: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	fam, failed := res.Worst()
	if !failed || fam != properties.FamilyCrash || !res.Crashed() {
		t.Fatalf("verdict %s (failed %v), want crash:\n%s", fam, failed, res.Summary())
	}
	for _, v := range res.Violations {
		if v.Invariant == "NoSuchInvariant" {
			t.Fatalf("unregistered name reached the result: %+v", v)
		}
	}
	if !strings.Contains(res.Violations[len(res.Violations)-1].Message, `"NoSuchInvariant" refused: not in the registry`) {
		t.Fatalf("crash message does not name the refusal:\n%s", res.Summary())
	}
}

// TestWorstOrdersFamilies: safety before liveness before crash (a crash
// after a safety violation does not hide it); none failed is no family
// at all.
func TestWorstOrdersFamilies(t *testing.T) {
	for _, c := range []struct {
		names []properties.InvariantName
		want  properties.Family
	}{
		{[]properties.InvariantName{properties.InvariantQuiesce, properties.InvariantLiveness}, properties.FamilyLiveness},
		{[]properties.InvariantName{properties.InvariantLiveness, properties.InvariantMonotonicRead}, properties.FamilySafety},
		{[]properties.InvariantName{properties.InvariantConditionalWrites, properties.InvariantCrash}, properties.FamilySafety},
		{[]properties.InvariantName{properties.InvariantCrash, properties.InvariantLiveness}, properties.FamilyLiveness},
		{[]properties.InvariantName{properties.InvariantCrash}, properties.FamilyCrash},
	} {
		r := &Result{}
		for _, n := range c.names {
			r.Violations = append(r.Violations, Violation{Invariant: n})
		}
		if got, failed := r.Worst(); !failed || got != c.want {
			t.Errorf("%v: Worst = %s, %v; want %s", c.names, got, failed, c.want)
		}
	}
	if _, failed := (&Result{}).Worst(); failed {
		t.Fatal("a result without violations failed")
	}
}
