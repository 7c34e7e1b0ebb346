package properties

import (
	"errors"
	"fmt"
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
	text     string
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
	what  InvariantName
	msgs  []string
	count int
}

func (v *violations) add(format string, args ...any) {
	v.count++
	if len(v.msgs) < FindingsKeptMax {
		v.msgs = append(v.msgs, fmt.Sprintf(format, args...))
	}
}

// err is nil without findings, else a *FindingsError whose text lists the
// first violationsMax of them.
func (v *violations) err() error {
	if v.count == 0 {
		return nil
	}
	listed := v.msgs[:min(len(v.msgs), violationsMax)]
	s := strings.Join(listed, "; ")
	if v.count > len(listed) {
		s += fmt.Sprintf("; and %d more", v.count-len(listed))
	}
	return &FindingsError{Invariant: v.what, Findings: v.msgs, Count: v.count, text: string(v.what) + ": " + s}
}
