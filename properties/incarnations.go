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
}

// IncarnationsApart checks the administered stream's ops against its
// changes the operator proposed and saw done: (1) a read sent after a create was done returns no value a
// write acknowledged before that create was asked for put there (that
// write's generation was an earlier one); (2) no write sent after a
// delete was done and answered before the next create was asked for is
// acknowledged. It names the first violation and how many there are.
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
			nextCreateNs := int64(1<<63 - 1)
			for _, n := range changes[ci+1:] {
				if !n.Deleted {
					nextCreateNs = n.AskedNs
					break
				}
			}
			for i := range ops {
				o := &ops[i]
				if o.Kind == StreamOpWrite && o.Written && o.InvokedNs > c.DoneNs && o.AnsweredNs < nextCreateNs {
					report("a write of %q sent at %d ns, after the delete asked at %d ns was done at %d ns, was acknowledged at %d ns: a deleted stream accepted it",
						o.Value, o.InvokedNs, c.AskedNs, c.DoneNs, o.AnsweredNs)
				}
			}
			continue
		}
		old := map[string]int64{}
		for i := range ops {
			if o := &ops[i]; o.Kind == StreamOpWrite && o.Written && o.AnsweredNs < c.AskedNs {
				old[o.Value] = o.AnsweredNs
			}
		}
		for i := range ops {
			o := &ops[i]
			if o.Kind != StreamOpRead || !o.Found || o.InvokedNs <= c.DoneNs {
				continue
			}
			if at, ok := old[o.Value]; ok {
				report("a read sent at %d ns, after the create asked at %d ns was done at %d ns, returned %q at version %d, which a write acknowledged at %d ns put in an earlier generation",
					o.InvokedNs, c.AskedNs, c.DoneNs, o.Value, o.Version, at)
			}
		}
	}
	if count == 0 {
		return nil
	}
	return InvariantIncarnationsApart.Errorf("%s (%d such ops)", first, count)
}
