package logstore

import (
	"fmt"
	"hash/crc32"
)

// rawFrame is one checked frame of a transaction, not yet decoded.
type rawFrame struct {
	kind    frameKind
	off     int
	payload []byte
}

func crc32Of(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }

// tableCount is how many tables a transaction may write besides the raft
// frame: the four applied tables and the consumer-group table.
const tableCount = 5

// tableKinds are the tables, in the order a transaction writes them.
var tableKinds = [tableCount]frameKind{kindLog, kindState, kindPosition, kindOutbox, kindConsumerGroup}

// tableRowCounts is how many rows b holds for each table of tableKinds.
func tableRowCounts(b *Batch) [tableCount]int {
	return [tableCount]int{len(b.Log), len(b.State), len(b.Positions), len(b.Outbox), len(b.ConsumerGroups)}
}

// encodeTxn encodes a batch as the frames of one transaction: the raft
// frame (if any groups), then the table frames (each only if it has rows).
// tables[i] is table i's frame, empty if absent.
func encodeTxn(b *Batch) (raftFrame []byte, tables [tableCount][]byte, err error) {
	_, raftFrame, tables, err = appendTxn(nil, b)
	return raftFrame, tables, err
}

// appendTxn is encodeTxn appending the frames to dst, each encoded in place
// (no payload is built apart and copied); the frames are slices of the
// returned buffer. On error dst is returned unchanged in length.
func appendTxn(dst []byte, b *Batch) (buf []byte, raftFrame []byte, tables [tableCount][]byte, err error) {
	start := len(dst)
	var ends [tableCount + 1]int // frame i spans ends[i-1] (or start) to ends[i]
	if len(b.Groups) > 0 {
		if dst, err = appendFrameOf(dst, kindRaft, b); err != nil {
			return dst[:start], nil, tables, err
		}
	}
	ends[0] = len(dst)
	counts := tableRowCounts(b)
	for i := range tableKinds {
		if counts[i] > 0 {
			if dst, err = appendFrameOf(dst, tableKinds[i], b); err != nil {
				return dst[:start], nil, tables, err
			}
		}
		ends[i+1] = len(dst)
	}
	raftFrame = dst[start:ends[0]:ends[0]]
	for i := range tables {
		tables[i] = dst[ends[i]:ends[i+1]:ends[i+1]]
	}
	return dst, raftFrame, tables, nil
}

// appendFrameOf appends the frame of kind holding b's rows of that kind (or
// its raft writes), encoded in place, and refuses a payload above
// frameLenMax.
func appendFrameOf(dst []byte, kind frameKind, b *Batch) ([]byte, error) {
	start := len(dst)
	e := enc{b: append(dst, 0, 0, 0, 0, byte(kind), 0, 0, 0, 0)}
	switch kind {
	case kindRaft:
		e.groups(b.Groups)
	case kindLog:
		e.logRows(b.Log)
	case kindState:
		e.stateRows(b.State)
	case kindPosition:
		e.positionRows(b.Positions)
	case kindOutbox:
		e.outboxRows(b.Outbox)
	case kindConsumerGroup:
		e.consumerGroupRows(b.ConsumerGroups)
	default:
		panic(fmt.Sprintf("logstore: no batch frame of kind %s", kind))
	}
	n := len(e.b) - start - frameHeaderBytes
	if n > frameLenMax {
		return e.b[:start], fmt.Errorf("%w: the %s frame would hold %d bytes, more than %d; split the batch",
			ErrInvalidBatch, kind, n, frameLenMax)
	}
	sealFrame(e.b[start:])
	return e.b, nil
}

// decodeTxn decodes a transaction's frames into a batch and validates its
// shape. Each frame kind may appear at most once, in encoding order. The
// batch's row slices are reuse's when large enough (an empty reuse: all
// new), every row decoded afresh.
func decodeTxn(frames []rawFrame, reuse *Batch) (Batch, error) {
	return decodeTxnSharing(frames, reuse, nil)
}

// decodeTxnSharing is decodeTxn whose rows share their scopes' names with
// the ones names holds (a store's rows name a few scopes), which it keeps.
func decodeTxnSharing(frames []rawFrame, reuse *Batch, names *scopeNames) (Batch, error) {
	var b Batch
	lastKind := kindInvalid
	for _, f := range frames {
		if f.kind <= lastKind {
			return Batch{}, fmt.Errorf("%s frame at byte %d is out of order", f.kind, f.off)
		}
		lastKind = f.kind
		var err error
		switch f.kind {
		case kindRaft:
			b.Groups, err = decodeGroups(f.payload, reuse.Groups)
		case kindLog:
			b.Log, err = decodeLog(f.payload, reuse.Log, names)
		case kindState:
			b.State, err = decodeState(f.payload, reuse.State, names)
		case kindPosition:
			b.Positions, err = decodePositions(f.payload, reuse.Positions, names)
		case kindOutbox:
			b.Outbox, err = decodeOutbox(f.payload, reuse.Outbox, names)
		case kindConsumerGroup:
			b.ConsumerGroups, err = decodeConsumerGroups(f.payload, reuse.ConsumerGroups, names)
		default:
			err = fmt.Errorf("unexpected %s frame", f.kind)
		}
		if err != nil {
			return Batch{}, fmt.Errorf("%s frame at byte %d: %w", f.kind, f.off, err)
		}
	}
	if err := validateShape(&b); err != nil {
		return Batch{}, err
	}
	return b, nil
}
