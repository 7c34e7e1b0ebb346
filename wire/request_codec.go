package wire

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// EncodeRequest returns the request as a request frame.
func EncodeRequest(q *Request) ([]byte, error) {
	return AppendRequest(make([]byte, 0, RequestFrameLen(q)), q)
}

// AppendRequest appends the request as a request frame to dst; on error dst
// is returned unchanged in length.
func AppendRequest(dst []byte, q *Request) ([]byte, error) {
	if err := q.Validate(); err != nil {
		return dst, fmt.Errorf("%w: %w", ErrUnencodable, err)
	}
	start := len(dst)
	dst, bodyStart := beginFrame(dst, FrameRequest)
	dst = appendU64(dst, q.ID)
	dst = appendU8(dst, uint8(q.Body.Kind()))
	dst = appendScope(dst, q.Scope)
	switch b := q.Body.(type) {
	case *StateGet:
		dst = appendString(dst, b.Key)
	case *SubscribeRead:
		dst = appendU64(dst, b.FromOffset)
		dst = appendU32(dst, b.MaxEntries)
	case *GroupFetch:
		dst = appendString(dst, b.Group)
		dst = appendU32(dst, b.MaxEntries)
		dst = appendU64(dst, b.LeaseNs)
	case *GroupAck:
		dst = appendString(dst, b.Group)
		dst = appendU64(dst, b.Offset)
	case *OutboxRead:
		dst = appendU64(dst, b.FromOffset)
		dst = appendU32(dst, b.MaxEntries)
	case *OutboxTrim:
		dst = appendU64(dst, b.ThroughOffset)
	default:
		dst = appendRecordBody(dst, RecordOf(q.Body))
	}
	return finishFrame(dst, start, bodyStart)
}

func appendScope(b []byte, s felix.Scope) []byte {
	b = appendString(b, s.Tenant)
	b = appendString(b, s.Namespace)
	b = appendString(b, s.Stream)
	return appendU32(b, s.Shard)
}

func readScope(r *reader) felix.Scope {
	var s felix.Scope
	s.Tenant = r.stringField("scope tenant", felix.NameLenMax)
	s.Namespace = r.stringField("scope namespace", felix.NameLenMax)
	s.Stream = r.stringField("scope stream", felix.NameLenMax)
	s.Shard = r.u32("scope shard")
	return s
}

// DecodeRequest decodes exactly one request frame.
func DecodeRequest(b []byte) (Request, error) {
	body, err := openFrame(b, FrameRequest)
	if err != nil {
		return Request{}, err
	}
	r := newReader(body)
	var q Request
	q.ID = r.u64("request id")
	kind := RequestKind(r.u8("request kind"))
	q.Scope = readScope(r)
	q.Body = readRequestBody(r, kind)
	r.end("request")
	if r.err == nil {
		if err := q.Validate(); err != nil {
			r.fail("decoded request is invalid: %v", err)
		}
	}
	if r.err != nil {
		return Request{}, r.err
	}
	return q, nil
}

func readRequestBody(r *reader, kind RequestKind) RequestBody {
	if r.err != nil {
		return nil
	}
	switch kind {
	case RequestPublish:
		return &Publish{Record: readRecord(r)}
	case RequestPublishIf:
		return &PublishIf{Record: readRecord(r)}
	case RequestEnqueue:
		return &Enqueue{Record: readRecord(r)}
	case RequestCommit:
		return &Commit{Record: readRecord(r)}
	case RequestCommitIf:
		return &CommitIf{Record: readRecord(r)}
	case RequestStateGet:
		return &StateGet{Key: r.stringField("state_get key", felix.KeyLenMax)}
	case RequestSubscribeRead:
		return &SubscribeRead{FromOffset: r.u64("subscribe_read from offset"), MaxEntries: r.u32("subscribe_read max entries")}
	case RequestGroupFetch:
		return &GroupFetch{
			Group:      r.stringField("group_fetch group", GroupNameLenMax),
			MaxEntries: r.u32("group_fetch max entries"),
			LeaseNs:    r.u64("group_fetch lease ns"),
		}
	case RequestGroupAck:
		return &GroupAck{Group: r.stringField("group_ack group", GroupNameLenMax), Offset: r.u64("group_ack offset")}
	case RequestOutboxRead:
		return &OutboxRead{FromOffset: r.u64("outbox_read from offset"), MaxEntries: r.u32("outbox_read max entries")}
	case RequestOutboxTrim:
		return &OutboxTrim{ThroughOffset: r.u64("outbox_trim through offset")}
	}
	r.fail("unknown request kind %d", kind)
	return nil
}

// RequestFrameLen is the exact length EncodeRequest produces for a valid
// request, so a client can refuse an oversize request before sending it.
func RequestFrameLen(q *Request) int {
	n := FrameOverheadLen + 8 + 1 + 4 + len(q.Scope.Tenant) + 4 + len(q.Scope.Namespace) + 4 + len(q.Scope.Stream) + 4
	switch b := q.Body.(type) {
	case *StateGet:
		n += 4 + len(b.Key)
	case *SubscribeRead:
		n += 8 + 4
	case *GroupFetch:
		n += 4 + len(b.Group) + 4 + 8
	case *GroupAck:
		n += 4 + len(b.Group) + 8
	case *OutboxRead:
		n += 8 + 4
	case *OutboxTrim:
		n += 8
	default:
		if rec := RecordOf(q.Body); rec != nil {
			n += recordBodyLen(rec)
		}
	}
	return n
}
