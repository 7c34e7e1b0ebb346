package properties

// NoPartialCommit checks one reader's observation: the state it read must
// be exactly what the commits whose events it saw wrote, in event order.
// A value with no seen event behind it is state without its event; a
// seen commit's put or delete missing from the state is an event without
// its state. Versions are VersionIsOffset's business and are not compared.
func NoPartialCommit(obs *ReaderView, intent IntentFunc) error {
	if err := checkSorted(obs.Broker, obs.State); err != nil {
		return err
	}
	want := make([]ViewSlot, 0, len(obs.State)+4)
	for i := range obs.Events {
		ev := &obs.Events[i]
		if !ev.HasEvent {
			return InvariantNoPartialCommit.Errorf("reader at %s was handed offset %d as an event, but that record has none",
				obs.Broker, ev.Offset)
		}
		ops, ok := intent(ev.Event)
		if !ok {
			return InvariantNoPartialCommit.Errorf("reader at %s saw event %q at offset %d, which no commit wrote",
				obs.Broker, ev.Event, ev.Offset)
		}
		want = applyOps(want, ops, ev.Offset)
	}
	return compareValues(obs, want)
}

// compareValues compares keys and values (not versions) of the reader's
// state with the state its seen events imply.
func compareValues(obs *ReaderView, want []ViewSlot) error {
	i, j := 0, 0
	for i < len(obs.State) || j < len(want) {
		switch {
		case j == len(want) || (i < len(obs.State) && obs.State[i].Key < want[j].Key):
			return InvariantNoPartialCommit.Errorf("reader at %s sees %s=%s but none of the %d events it sees wrote it (state without its event); seen events imply %s",
				obs.Broker, obs.State[i].Key, obs.State[i].Value, len(obs.Events), formatState(want))
		case i == len(obs.State) || want[j].Key < obs.State[i].Key:
			return InvariantNoPartialCommit.Errorf("reader at %s sees the event that wrote %s=%s but not that state (event without its state); state %s",
				obs.Broker, want[j].Key, want[j].Value, formatState(obs.State))
		case obs.State[i].Value != want[j].Value:
			return InvariantNoPartialCommit.Errorf("reader at %s sees %s=%s but the %d events it sees imply %s=%s (half a commit)",
				obs.Broker, obs.State[i].Key, obs.State[i].Value, len(obs.Events), want[j].Key, want[j].Value)
		}
		i++
		j++
	}
	return nil
}
