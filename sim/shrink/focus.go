package shrink

import "github.com/felixsim/felixsim/sim/faultplan"

// shrinkFocus tries, before any ddmin over operations, to keep only the
// operations the violation points at: the best run's finding of the
// target names operations (runner.Violation.Evidence), each with its
// client and scope. Candidates, in order, keep only the slots of those
// clients on those scopes, only the slots on those scopes, and only the
// slots of those clients; the first that still fails is taken. A failure
// that needs the other operations (load, a write through another client)
// costs these few candidates; one that does not loses most operations in
// one step, where ddmin would need many chunks that happen to line up.
func (s *shrinker) shrinkFocus() error {
	clients, scopes := s.evidenceClientsAndScopes()
	if len(clients) == 0 {
		return nil
	}
	all := s.keptSlots()
	pick := func(keep func(o opSlot) bool) []opSlot {
		var out []opSlot
		for _, o := range all {
			if keep(o) {
				out = append(out, o)
			}
		}
		return out
	}
	onScope := func(o opSlot) bool { return scopes[s.scopeOf(o)] }
	ofClient := func(o opSlot) bool { return clients[o.client] }
	both := pick(func(o opSlot) bool { return ofClient(o) && onScope(o) })
	var plans []*faultplan.Plan
	for i, keep := range [][]opSlot{both, pick(onScope), pick(ofClient)} {
		// both is a subset of the other two: one as long is the same set.
		// The empty set is the operations phase's first candidate.
		if len(keep) > 0 && len(keep) < len(all) && (i == 0 || len(keep) > len(both)) {
			plans = append(plans, s.withSlots(s.best, keep))
		}
	}
	_, err := s.firstFailing(plans)
	return err
}

// evidenceClientsAndScopes are the workload clients and the scopes of the
// operations the best run's finding of the target names; none when it
// names none.
func (s *shrinker) evidenceClientsAndScopes() (clients map[int]bool, scopes map[string]bool) {
	clients, scopes = map[int]bool{}, map[string]bool{}
	for _, e := range s.bestOut.evidenceOf(s.target) {
		if e.Client >= 0 && e.Client < len(s.bestOut.opSlots) {
			clients[e.Client], scopes[e.Scope] = true, true
		}
	}
	return clients, scopes
}
