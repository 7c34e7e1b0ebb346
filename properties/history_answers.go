package properties

// HistoryAnswersHonest checks every answer a client took for a write's
// request against what the brokers did, as their abstract trace shows
// it (l): an answer speaks for the one copy of the request it answers,
// so with D copies delivered,
//   - NotLeader or Unavailable ("this copy was not proposed"): the
//     answering broker proposed the request at most D-1 times;
//   - a refusal or any error but Timeout and Internal ("this copy wrote
//     nothing"): the request landed at most D-1 times;
//   - written at offset o: the request landed at o.
//
// Requests the history did not record (Requests nil, or an answer
// unrecorded) and a ledger that overflowed are not judged.
func HistoryAnswersHonest(h *History, l *Ledger) error {
	if l == nil || l.Overflowed {
		return nil
	}
	x := l.index()
	v := violations{what: InvariantAnswersHonest}
	sentRequests(h, func(op *HistoryOp, i int) {
		v.at = op.ID
		q := &op.Requests[i]
		others := uint64(max(q.Delivered, 1) - 1) // the copies besides the answered one
		if q.Answer.NotProposed() {
			by := 0
			for _, p := range x.proposals(op.Client, q.ID) {
				if p.Broker == q.Broker {
					by++
				}
			}
			if uint64(by) > others {
				v.add("op %d (%s by client %d on %s): broker %d answered request %d %s (this copy was not proposed), yet proposed it %d times of %d copies delivered",
					op.ID, op.Kind, op.Client, op.Scope, q.Broker, q.ID, q.Answer, by, q.Delivered)
			}
		}
		landed := x.landed(op.Client, q.ID)
		if q.Answer.WroteNothing() && uint64(len(landed)) > others {
			v.add("op %d (%s by client %d on %s): broker %d answered request %d %s (this copy wrote nothing), yet it landed %d times of %d copies delivered: %s",
				op.ID, op.Kind, op.Client, op.Scope, q.Broker, q.ID, q.Answer, len(landed), q.Delivered, landingsOf(landed))
		}
		if q.Answer == AnswerWritten && op.Outcome == OutcomeOK && !landedAt(landed, op.Offset) {
			v.add("op %d (%s by client %d on %s): broker %d answered request %d written at offset %d, yet it landed there in no broker's applies (landings: %s)",
				op.ID, op.Kind, op.Client, op.Scope, q.Broker, q.ID, op.Offset, landingsOrNone(landed))
		}
	})
	return v.err()
}

// landedAt reports whether one of ls is at offset (in the shard its
// request was proposed for: where a client routed it is
// RoutedToOwningShard's to judge, and that it landed on the proposal's
// shard LandingMatchesRequest's).
func landedAt(ls []*LedgerLanding, offset uint64) bool {
	for _, l := range ls {
		if l.Offset == offset {
			return true
		}
	}
	return false
}

func landingsOrNone(ls []*LedgerLanding) string {
	if len(ls) == 0 {
		return "none"
	}
	return landingsOf(ls)
}
