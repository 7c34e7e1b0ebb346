package wire

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// benchRecord is the reference commit: one event and four puts.
func benchRecord() felix.Record {
	r := felix.Record{Event: felix.EventEnqueue, Payload: []byte(`{"type":"placed","id":42,"lines":3}`)}
	for _, k := range []string{"order-42", "order-42/lines", "customer-7/last-order", "cart-42"} {
		r.Ops = append(r.Ops, felix.StateOp{Kind: felix.OpPut, Key: k, Value: []byte(`{"status":"placed","total":1299}`)})
	}
	return r
}

func BenchmarkEncodeRecord(b *testing.B) {
	r := benchRecord()
	buf := make([]byte, 0, RecordFrameLen(&r))
	b.SetBytes(int64(RecordFrameLen(&r)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendRecord(buf[:0], &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRecord(b *testing.B) {
	r := benchRecord()
	enc, err := EncodeRecord(&r)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRecord(enc); err != nil {
			b.Fatal(err)
		}
	}
}
