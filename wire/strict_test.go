package wire

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/stretchr/testify/require"
)

// frameOf seals a hand-written body with a correct header and CRC, so these
// tests reach the body checks rather than stopping at the checksum.
func frameOf(kind FrameKind, body []byte) []byte {
	b := []byte{Magic0, Magic1, Version, byte(kind)}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// body builds a little-endian body from uint8, uint32, uint64, string and
// []byte pieces; strings and []byte are written raw (add lengths yourself).
func body(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case uint8:
			b = append(b, v)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		case string:
			b = append(b, v...)
		case []byte:
			b = append(b, v...)
		default:
			panic("body: unsupported part")
		}
	}
	return b
}

// str is a length-prefixed string piece.
func str(s string) []byte { return body(uint32(len(s)), s) }

const pub, enq, put, del = uint8(1), uint8(2), uint8(1), uint8(2)

func TestDecodeRecordRefuses(t *testing.T) {
	good := body(pub, uint8(0), uint64(0), str("ev"), uint32(1), put, str("k"), str("v"))
	require.NoError(t, errOf(DecodeRecord(frameOf(FrameRecord, good))), "the baseline must decode")
	badCRC := frameOf(FrameRecord, good)
	badCRC[len(badCRC)-1] ^= 0xff
	hugeLen := frameOf(FrameRecord, good)
	binary.LittleEndian.PutUint32(hugeLen[4:], FrameBodyLenMax+1)
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"empty input", "header needs 8 bytes", nil},
		{"bad magic", "not the magic", append([]byte("GX"), frameOf(FrameRecord, good)[2:]...)},
		{"future version", "version 2 is not supported", append([]byte{Magic0, Magic1, 2}, frameOf(FrameRecord, good)[3:]...)},
		{"unknown frame kind", "unknown frame kind 9", frameOf(9, good)},
		{"request frame", "expected a record", frameOf(FrameRequest, good)},
		{"bad checksum", "checksum mismatch", badCRC},
		{"forged huge length", "over FrameBodyLenMax", hugeLen},
		{"event kind zero", "event kind 0", frameOf(FrameRecord, body(uint8(0), uint8(0), uint64(0), str(""), uint32(0)))},
		{"event kind three", "event kind 3", frameOf(FrameRecord, body(uint8(3), uint8(0), uint64(0), str(""), uint32(0)))},
		{"conditional byte two", "must be 0 or 1", frameOf(FrameRecord, body(pub, uint8(2), uint64(0), str(""), uint32(0)))},
		{"unconditional with expected offset", "unconditional record carries expected offset 7", frameOf(FrameRecord, body(pub, uint8(0), uint64(7), str(""), uint32(0)))},
		{"payload over limit", "exceeds the limit", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), uint32(felix.PayloadLenMax+1)))},
		{"payload longer than body", "exceeds the 4 bytes that remain", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), uint32(10), "abcd"))},
		{"op count over limit", "count 1025 exceeds the limit", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), str(""), uint32(felix.OpsPerRecordMax+1)))},
		{"forged op count", "needs at least", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), str(""), uint32(1000), put))},
		{"op kind zero", "unknown kind 0", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), str(""), uint32(1), uint8(0), str("k")))},
		{"empty key", "empty key", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), str(""), uint32(1), put, str(""), str("v")))},
		{"key over limit", "exceeds the limit 1024", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), str(""), uint32(1), del, str(strings.Repeat("k", 1025))))},
		{"put without value", "put value length", frameOf(FrameRecord, body(pub, uint8(0), uint64(0), str(""), uint32(1), put, str("k")))},
		{"trailing body bytes", "1 trailing bytes", frameOf(FrameRecord, append(good, 0))},
		{"trailing frame bytes", "trailing bytes after", append(frameOf(FrameRecord, good), 0)},
		{"truncated frame", "truncated", frameOf(FrameRecord, good)[:20]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, err := DecodeRecord(c.b)
			require.ErrorIs(t, err, ErrMalformed)
			require.ErrorContains(t, err, c.want)
			require.Zero(t, rec.Event, "a refused decode must not return a partial record")
		})
	}
}

func TestDecodeRequestRefuses(t *testing.T) {
	scope := body(str("acme"), str("orders"), str("order-events"), uint32(2))
	rec := func(ev, cond uint8, exp uint64, ops ...[]byte) []byte {
		b := body(ev, cond, exp, str("ev"), uint32(len(ops)))
		for _, op := range ops {
			b = append(b, op...)
		}
		return b
	}
	req := func(kind uint8, rest ...any) []byte {
		return frameOf(FrameRequest, body(append([]any{uint64(1), kind, scope}, rest...)...))
	}
	putOp := body(put, str("k"), str("v"))
	require.NoError(t, errOf(DecodeRequest(req(uint8(RequestCommit), rec(enq, 0, 0, putOp)))), "the baseline must decode")
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"kind zero", "unknown request kind 0", req(0)},
		{"kind past end", "unknown request kind 12", req(12)},
		{"publish with state ops", "only commit and commit_if may", req(uint8(RequestPublish), rec(pub, 0, 0, putOp))},
		{"publish with enqueue event", "must be publish", req(uint8(RequestPublish), rec(enq, 0, 0))},
		{"enqueue with publish event", "must be enqueue", req(uint8(RequestEnqueue), rec(pub, 0, 0))},
		{"publish_if unconditional", "must be true", req(uint8(RequestPublishIf), rec(pub, 0, 0))},
		{"commit conditional", "must be false", req(uint8(RequestCommit), rec(pub, 1, 5))},
		{"empty tenant", "empty tenant", frameOf(FrameRequest, body(uint64(1), uint8(RequestStateGet), str(""), str("n"), str("s"), uint32(0), str("k")))},
		{"tenant over limit", "exceeds the limit 255", frameOf(FrameRequest, body(uint64(1), uint8(RequestStateGet), str(strings.Repeat("t", 256))))},
		{"state_get empty key", "empty key", req(uint8(RequestStateGet), str(""))},
		{"subscribe zero entries", "max entries 0", req(uint8(RequestSubscribeRead), uint64(0), uint32(0))},
		{"subscribe too many entries", "max entries 1025", req(uint8(RequestSubscribeRead), uint64(0), uint32(1025))},
		{"fetch zero lease", "lease of 0 ns", req(uint8(RequestGroupFetch), str("g"), uint32(1), uint64(0))},
		{"ack empty group", "empty group", req(uint8(RequestGroupAck), str(""), uint64(3))},
		{"ack truncated", "group_ack offset", req(uint8(RequestGroupAck), str("g"), uint32(3))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := DecodeRequest(c.b)
			require.ErrorIs(t, err, ErrMalformed)
			require.ErrorContains(t, err, c.want)
			require.Nil(t, q.Body)
		})
	}
}

func TestDecodeAnswerRefuses(t *testing.T) {
	ans := func(kind uint8, rest ...any) []byte {
		return frameOf(FrameAnswer, body(append([]any{uint64(9), kind}, rest...)...))
	}
	entry := func(off uint64) []byte { return body(off, pub, uint8(0), uint64(0), str(""), uint32(0)) }
	require.NoError(t, errOf(DecodeAnswer(ans(uint8(AnswerEntries), uint32(2), entry(3), entry(4)))), "the baseline must decode")
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"kind zero", "unknown answer kind 0", ans(0)},
		{"kind past end", "unknown answer kind 8", ans(8)},
		{"error code zero", "unknown error code 0", ans(uint8(AnswerError), uint8(0), uint64(0), uint64(0), str(""))},
		{"error code past end", "unknown error code 200", ans(uint8(AnswerError), uint8(200), uint64(0), uint64(0), str(""))},
		{"leader hint on Internal", "only NotLeader may", ans(uint8(AnswerError), uint8(CodeInternal), uint64(4), uint64(0), str(""))},
		{"window start on NotLeader", "only BeforeWindow may", ans(uint8(AnswerError), uint8(CodeNotLeader), uint64(4), uint64(4), str(""))},
		{"message over limit", "exceeds the limit 1024", ans(uint8(AnswerError), uint8(CodeInternal), uint64(0), uint64(0), str(strings.Repeat("m", 1025)))},
		{"absent key with version", "absent key carries", ans(uint8(AnswerStateValue), uint8(0), uint64(3), str(""))},
		{"found flag two", "must be 0 or 1", ans(uint8(AnswerStateValue), uint8(2), uint64(3), str(""))},
		{"entries out of order", "does not follow offset 4", ans(uint8(AnswerEntries), uint32(2), entry(4), entry(4))},
		{"forged entry count", "needs at least", ans(uint8(AnswerEntries), uint32(1000), entry(4))},
		{"entry count over limit", "exceeds the limit 1024", ans(uint8(AnswerDeliveries), uint64(0), uint32(1025))},
		{"acked with trailing bytes", "trailing bytes", ans(uint8(AnswerAcked), uint8(0))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := DecodeAnswer(c.b)
			require.ErrorIs(t, err, ErrMalformed)
			require.ErrorContains(t, err, c.want)
			require.Nil(t, a.Body)
		})
	}
}

func TestEncodeRefuses(t *testing.T) {
	scope := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events"}
	cases := []struct {
		name, want string
		enc        func() ([]byte, error)
	}{
		{"record without event", "neither publish nor enqueue", func() ([]byte, error) {
			return EncodeRecord(&felix.Record{})
		}},
		{"unconditional with expected offset", "carries expected offset 3", func() ([]byte, error) {
			return EncodeRecord(&felix.Record{Event: felix.EventPublish, ExpectedOffset: 3})
		}},
		{"request without body", "no body", func() ([]byte, error) { return EncodeRequest(&Request{Scope: scope}) }},
		{"request without scope", "empty tenant", func() ([]byte, error) { return EncodeRequest(&Request{Body: &StateGet{Key: "k"}}) }},
		{"answer without body", "no body", func() ([]byte, error) { return EncodeAnswer(&Answer{}) }},
		{"error without code", "unknown error code 0", func() ([]byte, error) { return EncodeAnswer(&Answer{Body: &Error{}}) }},
		{"body over frame limit", "exceeds FrameBodyLenMax", func() ([]byte, error) {
			big := make([]byte, felix.ValueLenMax)
			ops := make([]felix.StateOp, 9)
			for i := range ops {
				ops[i] = felix.StateOp{Kind: felix.OpPut, Key: string(rune('a' + i)), Value: big}
			}
			return EncodeRecord(&felix.Record{Event: felix.EventPublish, Ops: ops})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.enc()
			require.ErrorIs(t, err, ErrUnencodable)
			require.ErrorContains(t, err, c.want)
			require.Empty(t, b)
		})
	}
}

func TestAppendLeavesPrefixOnError(t *testing.T) {
	prefix := []byte("keep")
	out, err := AppendRecord(prefix, &felix.Record{})
	require.Error(t, err)
	require.Equal(t, "keep", string(out))
	require.False(t, errors.Is(err, ErrMalformed), "an encode refusal is not a decode error")
}

func TestFrameLen(t *testing.T) {
	r := felix.Record{Event: felix.EventPublish, Payload: []byte("p")}
	b, err := EncodeRecord(&r)
	require.NoError(t, err)
	n, err := FrameLen(b[:FrameHeaderLen])
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	_, err = FrameLen(b[:FrameHeaderLen-1])
	require.ErrorIs(t, err, ErrMalformed)
	b[3] = 0
	_, err = FrameLen(b)
	require.ErrorContains(t, err, "unknown frame kind 0")
}
