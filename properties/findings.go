package properties

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// FindingsKeptMax caps the findings a FindingsError keeps one by one
// (each a line of text of a few hundred bytes). Overflow policy: later
// findings are counted, not kept, and the reader is told (Complete).
const FindingsKeptMax = 1 << 16

// FindingsError is the error of a check that made several findings: its
// text names the invariant and lists the first few findings and how many
// more (as it always did), and Findings keeps each finding's own text, so
// that a caller can find the earliest one (their times are the times of
// the operations each names, which the check does not weigh).
type FindingsError struct {
	Invariant InvariantName
	// Findings are each finding's text, in the order the check made them,
	// at most FindingsKeptMax; Count counts them all.
	Findings []string
	Count    int
	// keys are the findings' order keys (violations.at), one each.
	keys []uint64
	text string
}

func (e *FindingsError) Error() string { return e.text }

// Complete reports whether every finding is kept.
func (e *FindingsError) Complete() bool { return len(e.Findings) == e.Count }

// FindingsOf is err's findings (and how many there were in all) when it
// is a FindingsError, else err's text as one finding; none for nil.
func FindingsOf(err error) (texts []string, count int) {
	var fe *FindingsError
	switch {
	case err == nil:
		return nil, 0
	case errors.As(err, &fe):
		return fe.Findings, fe.Count
	}
	return []string{err.Error()}, 1
}

// violationsMax caps the violations one checker lists in its error's
// text; the rest are counted (and kept, up to FindingsKeptMax).
const violationsMax = 8

// violations collects one checker's findings into one error.
type violations struct {
	what InvariantName
	msgs []string
	// keys are the msgs' order keys: at, when each was added.
	keys  []uint64
	count int
	// at is the order key of the findings added next (MergeFindings): the
	// id of the operation a check judges when it judges operations in id
	// order, the index of the replica it reads when it reads replicas in
	// order; 0 when the check orders its findings by scope (the parts of
	// a history then come in scope order).
	at uint64
}

func (v *violations) add(format string, args ...any) {
	v.count++
	if len(v.msgs) < FindingsKeptMax {
		v.msgs = append(v.msgs, fmt.Sprintf(format, args...))
		v.keys = append(v.keys, v.at)
	}
}

// err is nil without findings, else a *FindingsError whose text lists the
// first violationsMax of them.
func (v *violations) err() error {
	if v.count == 0 {
		return nil
	}
	return findingsError(v.what, v.msgs, v.keys, v.count)
}

// findingsError is the FindingsError of count findings of which msgs (with
// their keys) are kept: its text lists the first violationsMax.
func findingsError(what InvariantName, msgs []string, keys []uint64, count int) *FindingsError {
	listed := msgs[:min(len(msgs), violationsMax)]
	s := strings.Join(listed, "; ")
	if count > len(listed) {
		s += fmt.Sprintf("; and %d more", count-len(listed))
	}
	return &FindingsError{Invariant: what, Findings: msgs, Count: count, keys: keys, text: string(what) + ": " + s}
}

// firstFinding is the error of a check that stops at its first finding,
// with that finding's order key (see violations.at).
type firstFinding struct {
	err error
	key uint64
}

func (e *firstFinding) Error() string { return e.err.Error() }
func (e *firstFinding) Unwrap() error { return e.err }

// firstAt is err (nil stays nil) as a check's first finding, ordered by key.
func firstAt(key uint64, err error) error {
	if err == nil {
		return nil
	}
	return &firstFinding{err: err, key: key}
}

// firstOfMany is the error of a check that words its first finding and
// counts the rest ("first; and N more"), with the first's order key.
type firstOfMany struct {
	what  InvariantName
	first string
	count int
	key   uint64
	text  string
}

func (e *firstOfMany) Error() string { return e.text }

// firstOfManyError is the error of count findings, first the one with key.
func firstOfManyError(what InvariantName, first string, count int, key uint64) *firstOfMany {
	text := what.Errorf("%s", first).Error()
	if count > 1 {
		text = what.Errorf("%s; and %d more", first, count-1).Error()
	}
	return &firstOfMany{what: what, first: first, count: count, key: key, text: text}
}

// MergeFindings is the error a check returns over a whole history, given
// the errors it returned over parts of it (nil for a part where the
// property held), the parts in ascending scope order and each holding
// whole scopes. One error is returned as it is. The findings of several
// FindingsErrors merge in the order of their keys (the operation or
// replica each judges; findings of equal keys in part order) and their
// counts add up. Of several first findings (a check that stops at its
// first), the one with the least key wins, the earlier part on a tie; so
// for a check that words its first finding and counts the rest, whose
// counts add up. Any other mix is a programmer error (a check not written
// to be judged in parts) and panics.
func MergeFindings(parts []error) error {
	var errs []error
	for _, e := range parts {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) <= 1 {
		if len(errs) == 0 {
			return nil
		}
		return errs[0]
	}
	var fes []*FindingsError
	var firsts []*firstFinding
	var manys []*firstOfMany
	for _, e := range errs {
		switch x := e.(type) {
		case *FindingsError:
			fes = append(fes, x)
		case *firstFinding:
			firsts = append(firsts, x)
		case *firstOfMany:
			manys = append(manys, x)
		default:
			panic(fmt.Sprintf("properties: MergeFindings refused %T (%v): not a finding with an order key", e, e))
		}
	}
	if len(fes) != len(errs) && len(firsts) != len(errs) && len(manys) != len(errs) {
		panic(fmt.Sprintf("properties: MergeFindings refused a mix of %d findings errors, %d first findings and %d first of many", len(fes), len(firsts), len(manys)))
	}
	switch {
	case len(firsts) > 0:
		best := firsts[0]
		for _, f := range firsts[1:] {
			if f.key < best.key {
				best = f
			}
		}
		return best
	case len(manys) > 0:
		return mergeFirstOfMany(manys)
	}
	return mergeFindingsErrors(fes)
}

// mergeFirstOfMany is the least key's first finding and every count.
func mergeFirstOfMany(ms []*firstOfMany) error {
	best, count := ms[0], 0
	for _, m := range ms {
		if m.what != best.what {
			panic(fmt.Sprintf("properties: MergeFindings refused findings of %s beside %s", m.what, best.what))
		}
		if m.key < best.key {
			best = m
		}
		count += m.count
	}
	return firstOfManyError(best.what, best.first, count, best.key)
}

// mergeFindingsErrors merges findings errors of one invariant by key.
func mergeFindingsErrors(fes []*FindingsError) error {
	type kept struct {
		key uint64
		msg string
	}
	var all []kept
	count := 0
	for _, fe := range fes {
		if fe.Invariant != fes[0].Invariant {
			panic(fmt.Sprintf("properties: MergeFindings refused findings of %s beside %s", fe.Invariant, fes[0].Invariant))
		}
		count += fe.Count
		for i, m := range fe.Findings {
			all = append(all, kept{key: fe.keys[i], msg: m})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].key < all[j].key })
	all = all[:min(len(all), FindingsKeptMax)]
	msgs, keys := make([]string, len(all)), make([]uint64, len(all))
	for i, k := range all {
		msgs[i], keys[i] = k.msg, k.key
	}
	return findingsError(fes[0].Invariant, msgs, keys, count)
}
