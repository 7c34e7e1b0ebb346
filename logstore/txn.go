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

// tableKinds are the four applied tables, in the order a transaction writes
// them.
var tableKinds = [4]frameKind{kindLog, kindState, kindPosition, kindOutbox}

// encodeTxn encodes a batch as the frames of one transaction: the raft
// frame (if any groups), then the four table frames (each only if it has
// rows). tables[i] is table i's frame, empty if absent.
func encodeTxn(b *Batch) (raftFrame []byte, tables [4][]byte, err error) {
	_, raftFrame, tables, err = appendTxn(nil, b)
	return raftFrame, tables, err
}

// appendTxn is encodeTxn appending the frames to dst, each encoded in place
// (no payload is built apart and copied); the frames are slices of the
// returned buffer. On error dst is returned unchanged in length.
func appendTxn(dst []byte, b *Batch) (buf []byte, raftFrame []byte, tables [4][]byte, err error) {
	start := len(dst)
	var ends [5]int // frame i spans ends[i-1] (or start) to ends[i]
	if len(b.Groups) > 0 {
		if dst, err = appendFrameOf(dst, kindRaft, func(e *enc) { e.groups(b.Groups) }); err != nil {
			return dst[:start], nil, tables, err
		}
	}
	ends[0] = len(dst)
	payloads := [4]func(e *enc){
		func(e *enc) { e.logRows(b.Log) },
		func(e *enc) { e.stateRows(b.State) },
		func(e *enc) { e.positionRows(b.Positions) },
		func(e *enc) { e.outboxRows(b.Outbox) },
	}
	counts := [4]int{len(b.Log), len(b.State), len(b.Positions), len(b.Outbox)}
	for i := range tableKinds {
		if counts[i] > 0 {
			if dst, err = appendFrameOf(dst, tableKinds[i], payloads[i]); err != nil {
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

// appendFrameOf appends one frame of kind whose payload fill encodes in
// place, and refuses a payload above frameLenMax.
func appendFrameOf(dst []byte, kind frameKind, fill func(e *enc)) ([]byte, error) {
	start := len(dst)
	e := enc{b: append(dst, 0, 0, 0, 0, byte(kind), 0, 0, 0, 0)}
	fill(&e)
	n := len(e.b) - start - frameHeaderBytes
	if n > frameLenMax {
		return e.b[:start], fmt.Errorf("%w: the %s frame would hold %d bytes, more than %d; split the batch",
			ErrInvalidBatch, kind, n, frameLenMax)
	}
	sealFrame(e.b[start:])
	return e.b, nil
}

// decodeTxn decodes a transaction's frames into a batch and validates its
// shape. Each frame kind may appear at most once, in encoding order.
func decodeTxn(frames []rawFrame) (Batch, error) {
	var b Batch
	last := kindInvalid
	for _, f := range frames {
		if f.kind <= last {
			return Batch{}, fmt.Errorf("%s frame at byte %d is out of order", f.kind, f.off)
		}
		last = f.kind
		var err error
		switch f.kind {
		case kindRaft:
			b.Groups, err = decodeGroups(f.payload)
		case kindLog:
			b.Log, err = decodeLog(f.payload)
		case kindState:
			b.State, err = decodeState(f.payload)
		case kindPosition:
			b.Positions, err = decodePositions(f.payload)
		case kindOutbox:
			b.Outbox, err = decodeOutbox(f.payload)
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
