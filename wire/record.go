package wire

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// Minimum encoded sizes, used to refuse forged counts before allocating.
const (
	// opLenMin is a delete with a one-byte key: kind(1) + key length(4) + key(1).
	opLenMin = 1 + 4 + 1
	// recordBodyLenMin is event(1) + conditional(1) + expected(8) +
	// payload length(4) + op count(4).
	recordBodyLenMin = 1 + 1 + 8 + 4 + 4
)

// checkRecord refuses a record the format cannot carry canonically.
func checkRecord(r *felix.Record) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnencodable, err)
	}
	if !r.Conditional && r.ExpectedOffset != 0 {
		return fmt.Errorf("%w: unconditional record carries expected offset %d", ErrUnencodable, r.ExpectedOffset)
	}
	return nil
}

// EncodeRecord returns the record as a record frame.
func EncodeRecord(r *felix.Record) ([]byte, error) {
	return AppendRecord(make([]byte, 0, RecordFrameLen(r)), r)
}

// AppendRecord appends the record as a record frame to dst; on error dst is
// returned unchanged in length.
func AppendRecord(dst []byte, r *felix.Record) ([]byte, error) {
	if err := checkRecord(r); err != nil {
		return dst, err
	}
	start := len(dst)
	dst, bodyStart := beginFrame(dst, FrameRecord)
	dst = appendRecordBody(dst, r)
	return finishFrame(dst, start, bodyStart)
}

// RecordFrameLen is the exact length EncodeRecord produces for a valid record.
func RecordFrameLen(r *felix.Record) int {
	return FrameOverheadLen + recordBodyLen(r)
}

func recordBodyLen(r *felix.Record) int {
	n := recordBodyLenMin + len(r.Payload)
	for i := range r.Ops {
		n += 1 + 4 + len(r.Ops[i].Key)
		if r.Ops[i].Kind == felix.OpPut {
			n += 4 + len(r.Ops[i].Value)
		}
	}
	return n
}

func appendRecordBody(b []byte, r *felix.Record) []byte {
	b = appendU8(b, uint8(r.Event))
	b = appendBool(b, r.Conditional)
	b = appendU64(b, r.ExpectedOffset)
	b = appendBytes(b, r.Payload)
	b = appendU32(b, uint32(len(r.Ops)))
	for i := range r.Ops {
		op := &r.Ops[i]
		b = appendU8(b, uint8(op.Kind))
		b = appendString(b, op.Key)
		if op.Kind == felix.OpPut {
			b = appendBytes(b, op.Value)
		}
	}
	return b
}

// DecodeRecord decodes exactly one record frame. Empty payloads and values
// decode as nil.
func DecodeRecord(b []byte) (felix.Record, error) {
	body, err := openFrame(b, FrameRecord)
	if err != nil {
		return felix.Record{}, err
	}
	r := newReader(body)
	rec := readRecord(r)
	r.end("record")
	if r.err != nil {
		return felix.Record{}, r.err
	}
	return rec, nil
}

// readRecord reads one record body and checks it as strictly as encoding
// does; failures are left in r.err.
func readRecord(r *reader) felix.Record {
	var rec felix.Record
	rec.Event = felix.EventKind(r.u8("record event kind"))
	if r.err == nil && rec.Event != felix.EventPublish && rec.Event != felix.EventEnqueue {
		r.fail("record event kind %d is neither publish (%d) nor enqueue (%d)", rec.Event, felix.EventPublish, felix.EventEnqueue)
	}
	rec.Conditional = r.boolean("record conditional flag")
	rec.ExpectedOffset = r.u64("record expected offset")
	if r.err == nil && !rec.Conditional && rec.ExpectedOffset != 0 {
		r.fail("unconditional record carries expected offset %d", rec.ExpectedOffset)
	}
	rec.Payload = r.bytesField("record payload", felix.PayloadLenMax)
	n := r.count("record operation", felix.OpsPerRecordMax, opLenMin)
	if r.err != nil {
		return felix.Record{}
	}
	if n > 0 {
		rec.Ops = make([]felix.StateOp, n)
		for i := range rec.Ops {
			readOp(r, i, &rec.Ops[i])
		}
	}
	if r.err == nil {
		if err := rec.Validate(); err != nil {
			r.fail("decoded record is invalid: %v", err)
		}
	}
	return rec
}

func readOp(r *reader, i int, op *felix.StateOp) {
	op.Kind = felix.OpKind(r.u8("operation kind"))
	if r.err == nil && op.Kind != felix.OpPut && op.Kind != felix.OpDelete {
		r.fail("operation %d has unknown kind %d", i, op.Kind)
		return
	}
	op.Key = r.stringField("operation key", felix.KeyLenMax)
	if op.Kind == felix.OpPut {
		op.Value = r.bytesField("put value", felix.ValueLenMax)
	}
}
