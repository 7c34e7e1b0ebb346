package properties

// The outbox in the contract model (docs/atomic-commit.md, "Requests"):
// every written record adds its event (kind and payload) to the scope's
// outbox at its offset, so a scope's rows are always the offsets
// [outbox start, next). A relay reads them in offset order from any
// offset (OutboxRead) and, once it has delivered them downstream,
// confirms them (OutboxTrim through an offset), which is the only thing
// that moves the start: retention never removes a row, so a record
// dropped from the log before the relay confirmed it keeps its event in
// the outbox. The outbox's start is therefore where a relay begins: a
// read from any offset at or below it answers the start's row first.

// OutboxStart is the first offset the outbox still holds a row for.
func (s *ContractScope) OutboxStart() uint64 { return s.outboxStart }

// OutboxRead answers a relay's read of at most entriesMax rows from
// offset from: the rows at offsets at or above both from and the start,
// in offset order, each record carrying its event alone.
func (s *ContractScope) OutboxRead(from uint64, entriesMax int) ContractAnswer {
	if a, refused := s.readRefusal(); refused {
		return a
	}
	lo := int(max(from, s.outboxStart) - s.outboxStart)
	lo = min(lo, len(s.outbox))
	hi := min(len(s.outbox), lo+entriesMax)
	a := ContractAnswer{Answer: AnswerEntries}
	a.Entries = append(a.Entries, s.outbox[lo:hi]...)
	return a
}

// OutboxTrim confirms the rows through offset through (never past the
// tail): they are gone, and the start moves past them.
func (s *ContractScope) OutboxTrim(through uint64) ContractAnswer {
	if a, refused := s.readRefusal(); refused {
		return a
	}
	end := min(through+1, s.next)
	if end > s.outboxStart {
		s.outbox = append(s.outbox[:0], s.outbox[end-s.outboxStart:]...)
		s.outboxStart = end
	}
	return ContractAnswer{Answer: AnswerAcked}
}
