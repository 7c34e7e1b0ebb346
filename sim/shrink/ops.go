package shrink

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// keptSlots is every slot the best run drew and its plan keeps, in
// slot-major order: clients draw at the same mean rate, so this is
// roughly invocation order, and ddmin's chunks are windows of time across
// every client (a failure usually needs a few operations close together
// in time).
func (s *shrinker) keptSlots() []opSlot {
	var all []opSlot
	for slot, more := 0, true; more; slot++ {
		more = false
		for c, n := range s.bestOut.opSlots {
			if slot < n {
				more = true
				if s.best.KeepsOp(c, slot) {
					all = append(all, opSlot{c, slot})
				}
			}
		}
	}
	return all
}

// withSlots is base keeping only the slots in keep, for every client of
// the best run (a slot past the ones that run drew is not kept either).
func (s *shrinker) withSlots(base *faultplan.Plan, keep []opSlot) *faultplan.Plan {
	perClient := make([][]int, len(s.bestOut.opSlots))
	for _, o := range keep {
		perClient[o.client] = append(perClient[o.client], o.slot)
	}
	q := *base
	q.Ops = nil
	for c := range perClient {
		q.Ops = append(q.Ops, faultplan.ClientOps{Client: c, Keep: faultplan.OpRangesOf(perClient[c])})
	}
	return &q
}

// shrinkNoOps tries the plan without any workload operation.
func (s *shrinker) shrinkNoOps() error {
	if len(s.keptSlots()) == 0 {
		return nil
	}
	_, err := s.firstFailing([]*faultplan.Plan{s.withSlots(s.best, nil)})
	return err
}

// shrinkClients drops whole clients' operations (shrinkOpGroups).
func (s *shrinker) shrinkClients() error {
	return s.shrinkOpGroups(func(o opSlot) string { return fmt.Sprintf("client %06d", o.client) })
}

// shrinkScopes drops every operation on whole scopes (shrinkOpGroups).
func (s *shrinker) shrinkScopes() error { return s.shrinkOpGroups(s.scopeOf) }

// shrinkOps is ddmin over the slots the best plan keeps. The search runs
// it after shrinkNoOps, as DDMin asks.
func (s *shrinker) shrinkOps() error {
	base, all := s.best, s.keptSlots()
	if len(all) == 0 {
		return nil
	}
	_, err := DDMin(len(all), func(cands [][]int) (int, error) {
		plans := make([]*faultplan.Plan, len(cands))
		for i, c := range cands {
			keep := make([]opSlot, len(c))
			for j, k := range c {
				keep[j] = all[k]
			}
			plans[i] = s.withSlots(base, keep)
		}
		return s.firstFailing(plans)
	})
	return err
}

// scopeOf is the scope a slot addressed in the failing run ("" when that
// run did not draw it).
func (s *shrinker) scopeOf(o opSlot) string { return s.scopes[o] }

// shrinkOpGroups is ddmin over groups of the kept slots, a group being the
// slots with one key (sorted by key): a few candidates remove a whole
// client's or scope's operations, where ddmin over single slots would
// need a chunk that happens to line up with them. The search runs it
// after shrinkNoOps, as DDMin asks.
func (s *shrinker) shrinkOpGroups(key func(opSlot) string) error {
	base, all := s.best, s.keptSlots()
	var keys []string
	members := map[string][]opSlot{}
	for _, o := range all {
		k := key(o)
		if _, ok := members[k]; !ok {
			keys = append(keys, k)
		}
		members[k] = append(members[k], o)
	}
	if len(keys) < 2 {
		return nil
	}
	sort.Strings(keys)
	_, err := DDMin(len(keys), func(cands [][]int) (int, error) {
		plans := make([]*faultplan.Plan, len(cands))
		for i, c := range cands {
			var keep []opSlot
			for _, g := range c {
				keep = append(keep, members[keys[g]]...)
			}
			plans[i] = s.withSlots(base, keep)
		}
		return s.firstFailing(plans)
	})
	return err
}
