package statemachine

import "fmt"

// Outcome says whether an apply wrote its record.
type Outcome uint8

// Outcomes; the zero value is invalid.
const (
	OutcomeInvalid Outcome = iota
	// OutcomeWritten: the record is at Result.Offset.
	OutcomeWritten
	// OutcomeRefused: a conditional record's expected offset was not the
	// tail; nothing was written and Result.Tail is the true tail.
	OutcomeRefused
)

// Result is what an accepted apply reports: Written{Offset} or Refused{Tail}.
type Result struct {
	Outcome Outcome
	// Offset is where the record was written (OutcomeWritten only).
	Offset uint64
	// Tail is the shard's next offset at apply time (OutcomeRefused only).
	Tail uint64
}

// Written builds the result of a write at offset.
func Written(offset uint64) Result { return Result{Outcome: OutcomeWritten, Offset: offset} }

// Refused builds the result of a conditional write refused at tail.
func Refused(tail uint64) Result { return Result{Outcome: OutcomeRefused, Tail: tail} }

// String renders Written{offset} or Refused{tail}.
func (r Result) String() string {
	switch r.Outcome {
	case OutcomeWritten:
		return fmt.Sprintf("Written{%d}", r.Offset)
	case OutcomeRefused:
		return fmt.Sprintf("Refused{%d}", r.Tail)
	}
	return fmt.Sprintf("Result{outcome %d}", uint8(r.Outcome))
}
