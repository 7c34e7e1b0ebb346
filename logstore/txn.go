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
// rows). tables[i] is the byte range of table i's frame, empty if absent.
func encodeTxn(b *Batch) (raftFrame []byte, tables [4][]byte, err error) {
	if len(b.Groups) > 0 {
		if raftFrame, err = frameOf(kindRaft, encodeGroups(b.Groups)); err != nil {
			return nil, tables, err
		}
	}
	payloads := [4]func() []byte{
		func() []byte { return encodeLog(b.Log) },
		func() []byte { return encodeState(b.State) },
		func() []byte { return encodePositions(b.Positions) },
		func() []byte { return encodeOutbox(b.Outbox) },
	}
	counts := [4]int{len(b.Log), len(b.State), len(b.Positions), len(b.Outbox)}
	for i := range tableKinds {
		if counts[i] == 0 {
			continue
		}
		if tables[i], err = frameOf(tableKinds[i], payloads[i]()); err != nil {
			return nil, tables, err
		}
	}
	return raftFrame, tables, nil
}

func frameOf(kind frameKind, payload []byte) ([]byte, error) {
	if len(payload) > frameLenMax {
		return nil, fmt.Errorf("%w: the %s frame would hold %d bytes, more than %d; split the batch",
			ErrInvalidBatch, kind, len(payload), frameLenMax)
	}
	return appendFrame(nil, kind, payload), nil
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
