package runner

import (
	"regexp"
	"sort"
	"strconv"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// historyLookup finds the operations a finding's text names (evidence.go,
// firsts.go), in a history held whole or, for one judged a scope at a
// time, among the answers to every question the findings could ask,
// gathered a scope at a time (scopedLookup).
type historyLookup interface {
	// evidence is operation id's evidence, if the history holds it.
	evidence(id uint64) (Evidence, bool)
	// writeWithPayload is the first write (an ok one if any) whose record
	// carries payload, 0 when none does.
	writeWithPayload(payload string) uint64
	// writesAt are the first EvidenceMax writes acknowledged at offset of
	// scope (felix.Scope.String), in id order.
	writesAt(scope string, offset uint64) []uint64
}

// wholeLookup looks operations up in a history held whole.
type wholeLookup struct{ h *properties.History }

func (w wholeLookup) evidence(id uint64) (Evidence, bool) {
	ops := w.h.Ops
	i := sort.Search(len(ops), func(i int) bool { return ops[i].ID >= id })
	if i == len(ops) || ops[i].ID != id {
		return Evidence{}, false
	}
	return evidenceFrom(&ops[i]), true
}

func (w wholeLookup) writeWithPayload(payload string) uint64 {
	var first uint64
	for i := range w.h.Ops {
		op := &w.h.Ops[i]
		if op.Record == nil || string(op.Record.Payload) != payload {
			continue
		}
		if op.Outcome == properties.OutcomeOK {
			return op.ID
		}
		if first == 0 {
			first = op.ID
		}
	}
	return first
}

func (w wholeLookup) writesAt(scope string, offset uint64) []uint64 {
	var ids []uint64
	for i := range w.h.Ops {
		if op := &w.h.Ops[i]; ackedAt(op, scope, offset) {
			ids = append(ids, op.ID)
			if len(ids) == EvidenceMax {
				break
			}
		}
	}
	return ids
}

// ackedAt reports whether op is a write acknowledged at offset of scope.
func ackedAt(op *properties.HistoryOp, scope string, offset uint64) bool {
	return op.Kind.IsWrite() && op.Outcome == properties.OutcomeOK && op.Offset == offset && op.Scope.String() == scope
}

// scopeOffset is a scope (as a finding writes it) and an offset in it.
type scopeOffset struct {
	scope  string
	offset uint64
}

// scopedLookup holds the answers to every question a set of findings can
// ask (lookupQuestions), gathered from the history a scope at a time.
type scopedLookup struct {
	ops map[uint64]Evidence
	// okWith and anyWith are the first ok write and the first write that
	// carried a payload.
	okWith, anyWith map[string]uint64
	at              map[scopeOffset][]uint64
}

func (s *scopedLookup) evidence(id uint64) (Evidence, bool) {
	e, ok := s.ops[id]
	return e, ok
}

func (s *scopedLookup) writeWithPayload(payload string) uint64 {
	if id := s.okWith[payload]; id != 0 {
		return id
	}
	return s.anyWith[payload]
}

func (s *scopedLookup) writesAt(scope string, offset uint64) []uint64 {
	return s.at[scopeOffset{scope, offset}]
}

// lookupQuestions are what findings' texts can ask of a history: the
// operations they name, the payloads they quote, the offsets of scopes
// they name (see evidenceOf).
func lookupQuestions(texts []string) *scopedLookup {
	q := &scopedLookup{ops: map[uint64]Evidence{}, okWith: map[string]uint64{}, anyWith: map[string]uint64{}, at: map[scopeOffset][]uint64{}}
	for _, t := range texts {
		for _, id := range opRefsIn(t) {
			q.ops[id] = Evidence{}
		}
		for _, p := range payloadsIn(t) {
			q.okWith[p], q.anyWith[p] = 0, 0
		}
		if so, ok := scopeOffsetIn(t); ok {
			q.at[so] = nil
		}
	}
	return q
}

// answer answers the questions from h, a part of the history holding
// whole scopes (called once per part, in any order), keeping the evidence
// of every operation an answer names.
func (s *scopedLookup) answer(h *properties.History) {
	for i := range h.Ops {
		op := &h.Ops[i]
		if _, ok := s.ops[op.ID]; ok {
			s.ops[op.ID] = evidenceFrom(op)
		}
		if op.Record != nil {
			p := string(op.Record.Payload)
			if first, ok := s.anyWith[p]; ok && (first == 0 || op.ID < first) {
				s.anyWith[p], s.ops[op.ID] = op.ID, evidenceFrom(op)
			}
			if first, ok := s.okWith[p]; ok && op.Outcome == properties.OutcomeOK && (first == 0 || op.ID < first) {
				s.okWith[p], s.ops[op.ID] = op.ID, evidenceFrom(op)
			}
		}
		if !op.Kind.IsWrite() || op.Outcome != properties.OutcomeOK {
			continue
		}
		k := scopeOffset{op.Scope.String(), op.Offset}
		if ids, ok := s.at[k]; ok && len(ids) < EvidenceMax {
			s.at[k], s.ops[op.ID] = append(ids, op.ID), evidenceFrom(op) // a scope's writes come in id order
		}
	}
}

// settle forgets the questions no part answered: the history holds no
// such operation.
func (s *scopedLookup) settle() {
	for id, e := range s.ops { //det:ok deletes only
		if e.Op == 0 {
			delete(s.ops, id)
		}
	}
}

// opRefsIn are the operation ids text names ("op N"), in text order.
func opRefsIn(text string) []uint64 {
	var ids []uint64
	for _, m := range opRef.FindAllStringSubmatchIndex(text, -1) {
		if id, err := strconv.ParseUint(text[m[2]:m[3]], 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// payloadsIn are the non-empty Go-quoted strings text quotes (the first
// 2*EvidenceMax), unquoted.
func payloadsIn(text string) []string {
	var out []string
	for _, q := range quotedRef.FindAllString(text, 2*EvidenceMax) {
		if s, err := strconv.Unquote(q); err == nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// offsetRef is an offset a replica finding names ("at offset 5").
var offsetRef = regexp.MustCompile(`\boffset (\d+)\b`)

// scopeOffsetIn is the first scope and the first offset text names.
func scopeOffsetIn(text string) (scopeOffset, bool) {
	s, o := scopeRef.FindStringSubmatch(text), offsetRef.FindStringSubmatch(text)
	if s == nil || o == nil {
		return scopeOffset{}, false
	}
	off, err := strconv.ParseUint(o[1], 10, 64)
	if err != nil {
		return scopeOffset{}, false
	}
	return scopeOffset{s[1], off}, true
}

// scopedHistoryLookup answers, a scope of the run's history at a time,
// every question the violations' findings ask (nil when they ask none).
func (r *run) scopedHistoryLookup(vs []Violation) (historyLookup, error) {
	var texts []string
	for i := range vs {
		texts = append(texts, vs[i].texts...)
		if len(vs[i].texts) == 0 {
			texts = append(texts, vs[i].Message)
		}
	}
	q := lookupQuestions(texts)
	if len(q.ops)+len(q.okWith)+len(q.at) == 0 {
		return q, nil
	}
	for _, s := range r.historyScopes() {
		p, err := r.scopeOps([]felix.Scope{s})
		if err != nil {
			return nil, err
		}
		q.answer(p)
	}
	q.settle()
	return q, nil
}
