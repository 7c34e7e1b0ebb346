package properties

import "fmt"

// The incarnation check judges reads and writes of one administered
// stream against the operator's deletes and creates of it. A stream
// created again under its old name is a new stream: no reader of the new
// generation may see what the deleted one held, and a deleted stream
// accepts no write. The check needs no broker state: the operator says
// when each change was asked for and when every shard group had applied
// it, and the client ops say what they were told.

// StreamChange is one operator delete or create of the administered
// stream, in the order asked.
type StreamChange struct {
	// Deleted marks a delete; false is a create.
	Deleted bool
	// AskedNs is when the operator asked; DoneNs when every shard
	// group's leader had applied it (0: never, e.g. superseded).
	AskedNs, DoneNs int64
	// Proposed is set when the operator proposed the change itself: the
	// stream was in the other state when it looked. A change that found
	// the wanted state already (another change's doing) marks no
	// boundary the check can place.
	Proposed bool
	// Unlisted marks where the list stops: from AskedNs on the operator
	// asked changes nobody recorded (a capped list), so no op answered
	// after it is judged against a boundary the list would have named.
	Unlisted bool
}

// StreamOpKind is an administered-stream op's kind; zero is invalid.
type StreamOpKind uint8

// Administered-stream op kinds.
const (
	streamOpInvalid StreamOpKind = iota
	// StreamOpWrite is a commit putting Value under the op's key.
	StreamOpWrite
	// StreamOpRead is a state read of the key.
	StreamOpRead
	// StreamOpGroupFetch is a consumer group's fetch: Values are the
	// written values of the records it was handed, BeforeWindow marks a
	// fetch refused because the group's position lies below the retained
	// window (the group stranded there).
	StreamOpGroupFetch
)

// StreamOp is one client op on the administered stream. Values written
// are unique per write, so a value read names the write that put it.
type StreamOp struct {
	Kind StreamOpKind
	// InvokedNs is when it was sent; AnsweredNs when its answer was
	// taken (at or after its arrival; 0: no answer).
	InvokedNs, AnsweredNs int64
	// Written is a write's success; Found and Value a read's result
	// (Version the offset it reported).
	Written bool
	Found   bool
	Value   string
	Version uint64
	// Values and BeforeWindow are a group fetch's result.
	Values       []string
	BeforeWindow bool
}

// IncarnationsApart checks the administered stream's ops against its
// changes the operator proposed and saw done: (1) a read sent after a
// create was done returns no value a write acknowledged before that
// create was asked for put there (that write's generation was an earlier
// one); (2) no write sent after a delete was done and answered before
// the next create was asked for is acknowledged; (3) a consumer group's
// fetch sent after a create was done is handed no record such a write
// put there; (4) nor is it refused as below the retained window before
// the next delete is asked: the new generation restarts its groups at its
// start (a group of the old one left where it was is stranded below the
// records the old generation dropped). It names the first violation and
// how many there are.
func IncarnationsApart(changes []StreamChange, ops []StreamOp) error {
	var first string
	count := 0
	report := func(format string, args ...any) {
		if count == 0 {
			first = fmt.Sprintf(format, args...)
		}
		count++
	}
	for ci, c := range changes {
		if c.DoneNs == 0 || !c.Proposed {
			continue
		}
		if c.Deleted {
			nextCreateNs := nextChangeNs(changes[ci+1:], false)
			for i := range ops {
				o := &ops[i]
				if o.Kind == StreamOpWrite && o.Written && o.InvokedNs > c.DoneNs && o.AnsweredNs < nextCreateNs {
					report("a write of %q sent at %d ns, after the delete asked at %d ns was done at %d ns, was acknowledged at %d ns: a deleted stream accepted it",
						o.Value, o.InvokedNs, c.AskedNs, c.DoneNs, o.AnsweredNs)
				}
			}
			continue
		}
		nextDeleteNs := nextChangeNs(changes[ci+1:], true)
		old := map[string]int64{}
		for i := range ops {
			if o := &ops[i]; o.Kind == StreamOpWrite && o.Written && o.AnsweredNs < c.AskedNs {
				old[o.Value] = o.AnsweredNs
			}
		}
		for i := range ops {
			o := &ops[i]
			if o.InvokedNs <= c.DoneNs {
				continue
			}
			switch {
			case o.Kind == StreamOpRead && o.Found:
				if at, ok := old[o.Value]; ok {
					report("a read sent at %d ns, after the create asked at %d ns was done at %d ns, returned %q at version %d, which a write acknowledged at %d ns put in an earlier generation",
						o.InvokedNs, c.AskedNs, c.DoneNs, o.Value, o.Version, at)
				}
			case o.Kind == StreamOpGroupFetch:
				judgeGroupFetch(report, c, o, old, nextDeleteNs)
			}
		}
	}
	if count == 0 {
		return nil
	}
	return InvariantIncarnationsApart.Errorf("%s (%d such ops)", first, count)
}

// nextChangeNs is when the first of later changes that is a delete (or,
// deleted false, a create) was asked, or where the list stops (Unlisted),
// or the end of time.
func nextChangeNs(later []StreamChange, deleted bool) int64 {
	for _, n := range later {
		if n.Deleted == deleted || n.Unlisted {
			return n.AskedNs
		}
	}
	return 1<<63 - 1
}

// judgeGroupFetch judges group fetch o, sent after create c was done,
// against the values old generations' writes put (old) and the next
// delete, asked at nextDeleteNs.
func judgeGroupFetch(report func(string, ...any), c StreamChange, o *StreamOp, old map[string]int64, nextDeleteNs int64) {
	for _, v := range o.Values {
		if at, ok := old[v]; ok {
			report("a group fetch sent at %d ns, after the create asked at %d ns was done at %d ns, was handed %q, which a write acknowledged at %d ns put in an earlier generation",
				o.InvokedNs, c.AskedNs, c.DoneNs, v, at)
		}
	}
	if o.BeforeWindow && o.AnsweredNs < nextDeleteNs {
		report("a group fetch sent at %d ns, after the create asked at %d ns was done at %d ns, was refused as below the retained window: the new generation left its group where the old one had it",
			o.InvokedNs, c.AskedNs, c.DoneNs)
	}
}
