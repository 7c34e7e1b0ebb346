package properties

import (
	"fmt"
	"sort"

	"github.com/anishathalye/porcupine"
	"github.com/felixsim/felixsim/felix"
)

// LinearizableStepsMax is the default search budget per scope, in model
// steps: beyond it a scope's verdict is unknown. Steps, not wall time, so
// the verdict is the same on every machine.
const LinearizableStepsMax = 4_000_000

// LinearizableVerdict is one scope's result; the zero value is invalid.
type LinearizableVerdict uint8

// Verdicts. Unknown is never a pass.
const (
	linVerdictInvalid LinearizableVerdict = iota
	// LinearizableOK: a linearization was found.
	LinearizableOK
	// LinearizableIllegal: the search proved there is none.
	LinearizableIllegal
	// LinearizableUnknown: the search ran out of budget.
	LinearizableUnknown
	// LinearizableSkipped: the scope cannot be checked (retention dropped
	// offsets no client observed, or no replica holds its log).
	LinearizableSkipped
)

var linVerdictNames = [...]string{"invalid", "ok", "illegal", "unknown", "skipped"}

// String names the verdict.
func (v LinearizableVerdict) String() string {
	if int(v) < len(linVerdictNames) {
		return linVerdictNames[v]
	}
	return fmt.Sprintf("LinearizableVerdict(%d)", uint8(v))
}

// LinearizableScope is one scope's verdict, how much search it took, and
// for an illegal or skipped scope why.
type LinearizableScope struct {
	Scope   felix.Scope
	Verdict LinearizableVerdict
	// Ops counts the operations searched (copies and the final read
	// included); Steps the model steps taken.
	Ops, Steps int
	Detail     string
}

// LinearizableReport is the per-scope linearizability check's result.
type LinearizableReport struct {
	Scopes []LinearizableScope
	// OK, Illegal, Unknown and Skipped count the scopes by verdict.
	OK, Illegal, Unknown, Skipped int
}

// Err returns a Linearizable violation naming every illegal scope, or nil.
// Unknown and skipped scopes are not violations; the report counts them.
func (r *LinearizableReport) Err() error {
	v := violations{what: InvariantLinearizable}
	for i := range r.Scopes {
		if s := &r.Scopes[i]; s.Verdict == LinearizableIllegal {
			v.add("%s: %s", s.Scope, s.Detail)
		}
	}
	return v.err()
}

// HistoryLinearizable checks, scope by scope, that the history's writes,
// state_get, subscribe and group-fetch reads, with the reference log read
// once after every answer, are linearizable against the shard's sequential
// specification (linearizable_model.go): some order of the operations,
// each taking effect between its invocation and its answer, explains every
// answer. Any copy of a sent write that no answer places (its answer was
// lost, or the network or a re-send made another copy) may take effect at
// any point after its invocation, or never (addLandings). The search is
// porcupine's, with cuts that never change a verdict (cutRefuses,
// outOfTurn); stepsMax bounds it per scope (0: LinearizableStepsMax), and
// a scope that runs out is unknown.
func HistoryLinearizable(h *History, ref *ReplicaLog, stepsMax int) LinearizableReport {
	return HistoryLinearizableAt(h, ref, stepsMax, latestNsOf(h))
}

// HistoryLinearizableAt is HistoryLinearizable over part of a history
// (h holds some scopes' operations; see HistoryPart) whose latest
// invocation or answer, over every part, was at latestNs: each scope's
// final read comes after it, as it does when the history is judged whole.
func HistoryLinearizableAt(h *History, ref *ReplicaLog, stepsMax int, latestNs int64) LinearizableReport {
	if stepsMax <= 0 {
		stepsMax = LinearizableStepsMax
	}
	var rep LinearizableReport
	for _, ls := range linScopesOf(h, ref, linPooled, latestNs) {
		s := LinearizableScope{Scope: ls.scope, Ops: len(ls.ops)}
		if ls.skip != "" {
			s.Verdict, s.Detail = LinearizableSkipped, ls.skip
		} else {
			s.Verdict, s.Steps = linCheck(ls, true, stepsMax)
			if s.Verdict == LinearizableIllegal {
				s.Detail = linExplain(ls, stepsMax)
			}
		}
		rep.add(s)
	}
	return rep
}

// Add appends o, the report of a part of the history whose scopes all
// come after r's (a history judged in parts, in scope order).
func (r *LinearizableReport) Add(o LinearizableReport) {
	r.Scopes = append(r.Scopes, o.Scopes...)
	r.OK, r.Illegal, r.Unknown, r.Skipped = r.OK+o.OK, r.Illegal+o.Illegal, r.Unknown+o.Unknown, r.Skipped+o.Skipped
}

func (r *LinearizableReport) add(s LinearizableScope) {
	r.Scopes = append(r.Scopes, s)
	switch s.Verdict {
	case LinearizableOK:
		r.OK++
	case LinearizableIllegal:
		r.Illegal++
	case LinearizableUnknown:
		r.Unknown++
	case LinearizableSkipped:
		r.Skipped++
	}
}

// linBudget counts model steps and refuses every step past its cap, which
// ends porcupine's search quickly; a search that hit the cap proved nothing
// (a linearization it found is still one).
type linBudget struct {
	steps, stepsMax int
}

func (b *linBudget) spend() bool {
	b.steps++
	return b.steps <= b.stepsMax
}

func (b *linBudget) exhausted() bool { return b.steps > b.stepsMax }

// linModel is the porcupine model of one scope; cut selects the cut search.
func linModel(ls *linScope, cut bool, budget *linBudget) porcupine.Model {
	sp := ls.spec
	return porcupine.Model{
		Init: func() interface{} { return sp.initial() },
		Step: func(state, input, _ interface{}) (bool, interface{}) {
			if !budget.spend() {
				return false, state
			}
			return sp.step(state.(linState), input.(*linOp), cut)
		},
		Equal: func(a, b interface{}) bool { return sp.equal(a.(linState), b.(linState)) },
		Hash: func(s interface{}) uint64 {
			st := s.(linState)
			h := st.n * 2
			if st.final {
				h++
			}
			return h ^ uint64(st.acked.size())<<40
		},
		DescribeOperation: func(input, _ interface{}) string { return sp.describe(input.(*linOp)) },
	}
}

// linOperations converts a scope's operations to porcupine's form.
func linOperations(ls *linScope) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(ls.ops))
	for i := range ls.ops {
		op := &ls.ops[i]
		out = append(out, porcupine.Operation{Input: op, Call: op.callNs, Return: op.returnNs})
	}
	return out
}

// linCheck searches one scope (cut or plain) within stepsMax steps.
func linCheck(ls *linScope, cut bool, stepsMax int) (LinearizableVerdict, int) {
	budget := &linBudget{stepsMax: stepsMax}
	res := porcupine.CheckOperationsTimeout(linModel(ls, cut, budget), linOperations(ls), 0)
	switch {
	case res == porcupine.Ok:
		return LinearizableOK, budget.steps
	case budget.exhausted():
		return LinearizableUnknown, budget.steps
	case res == porcupine.Illegal:
		return LinearizableIllegal, budget.steps
	}
	return LinearizableUnknown, budget.steps
}

// linExplain describes an illegal scope: how far the longest partial
// linearization gets and the earliest-invoked answered operation it could
// not place after it.
func linExplain(ls *linScope, stepsMax int) string {
	budget := &linBudget{stepsMax: stepsMax}
	ops := linOperations(ls)
	_, info := porcupine.CheckOperationsVerbose(linModel(ls, true, budget), ops, 0)
	var longest []int
	for _, p := range info.PartialLinearizations() {
		for _, l := range p {
			if len(l) > len(longest) {
				longest = l
			}
		}
	}
	placed := make([]bool, len(ops))
	for _, id := range longest {
		placed[id] = true
	}
	var stuck []*linOp
	for i := range ops {
		if op := ops[i].Input.(*linOp); !placed[i] && op.kind != linMaybe && op.kind != linDrop {
			stuck = append(stuck, op)
		}
	}
	sort.Slice(stuck, func(a, b int) bool { return stuck[a].callNs < stuck[b].callNs })
	msg := fmt.Sprintf("no linearization of %d operations (%d writes of unknown outcome, %d landings of unplaced request copies); the longest partial linearization places %d",
		len(ls.ops), ls.unknown, ls.copies, len(longest))
	if len(stuck) > 0 {
		op := stuck[0]
		msg += fmt.Sprintf(", and the earliest operation it leaves out is %s, invoked at %d ns", ls.spec.describe(op), op.callNs)
		if op.returnNs != op.callNs {
			msg += fmt.Sprintf(" and answered at %d ns", op.returnNs)
		}
	}
	return msg
}
