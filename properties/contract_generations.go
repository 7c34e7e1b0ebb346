package properties

import "fmt"

// Writes and stream generations (contract_model_generations.go): a
// stream deleted and created again is a new stream, and a deleted one
// refuses every request, "a write already in the log" included. So a
// write lands only in the generation whose live stream accepted it: one a
// leader accepted (proposed) while the stream was live in generation g
// and that applies after the delete's marker is refused, whether the
// shard then sits in g deleted or already in g+1. IncarnationsApart
// judges what clients read and were answered; this check judges what the
// brokers did, from their own account: which generation each broker's
// shard group was in when it accepted a write (its abstract trace's
// proposal) and when it applied one (the applied record).

// GenerationStamp is a shard group's incarnation on one broker at one
// moment: its stream's generation and whether it was deleted.
type GenerationStamp struct {
	Generation uint32
	Deleted    bool
}

// String names the stamp ("generation 2" or "generation 2, deleted").
func (g GenerationStamp) String() string {
	if g.Deleted {
		return fmt.Sprintf("generation %d, deleted", g.Generation)
	}
	return fmt.Sprintf("generation %d", g.Generation)
}

// GenerationWrite is one write of an administered stream as one broker
// handled it: accepted (proposed) or applied (landed at Offset), in raft
// group Group. Value names the record (the digest of its put's value: the
// writer's values are unique per write, so every copy of one write shares
// it).
type GenerationWrite struct {
	Broker uint64
	Group  uint64
	Value  uint64
	Offset uint64
	Stamp  GenerationStamp
	AtNs   int64
}

// WritesInTheirGeneration checks WriteInItsGeneration: every landing was
// applied by a live generation that some broker accepted that write in.
// A landing no acceptance names (a proposal the trace does not show) is
// not judged; it returns how many landings it judged.
func WritesInTheirGeneration(accepted, landed []GenerationWrite) (int, error) {
	type write struct{ group, value uint64 }
	by := map[write][]*GenerationWrite{}
	for i := range accepted {
		k := write{accepted[i].Group, accepted[i].Value}
		by[k] = append(by[k], &accepted[i])
	}
	v := violations{what: InvariantWriteInItsGeneration}
	judged := 0
	for i := range landed {
		l := &landed[i]
		as := by[write{l.Group, l.Value}]
		if len(as) == 0 {
			continue
		}
		judged++
		ok := false
		for _, a := range as {
			ok = ok || !a.Stamp.Deleted && a.Stamp == l.Stamp
		}
		if !ok {
			v.add("broker %d applied a write (value %016x) at offset %d at %d ns in %s; it was accepted by broker %d at %d ns in %s: a write accepted before a delete must be refused after it",
				l.Broker, l.Value, l.Offset, l.AtNs, l.Stamp, as[0].Broker, as[0].AtNs, as[0].Stamp)
		}
	}
	return judged, v.err()
}
