package properties

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/felixsim/felixsim/felix"
)

// historyHeader opens every encoded history; the version changes whenever
// a field is added, removed or changes meaning. v2 added each request's
// broker and answer (requests[].broker, requests[].answer). A v1 history
// (historyHeaderV1) still reads: its requests have broker 0 and answer
// unrecorded, unless it was written by a felixsim between that change
// and the bump, whose v1 files carry them (read as they are).
const (
	historyHeader   = "felixsim-history v2"
	historyHeaderV1 = "felixsim-history v1"
)

// HistoryLineLenMax caps one encoded operation when parsing; a longer line
// is refused.
const HistoryLineLenMax = 8 << 20

// HistoryOpsMax caps the operations a parsed history may hold; more are refused.
const HistoryOpsMax = 1 << 22

// EncodeHistory writes h as text: a header line, then one JSON object per
// operation. ParseHistory reads it back to an equal History.
func EncodeHistory(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(historyHeader + "\n"); err != nil {
		return err
	}
	for i := range h.Ops {
		b, err := AppendHistoryLine(nil, &h.Ops[i])
		if err != nil {
			return fmt.Errorf("history encode: op %d: %w", i, err)
		}
		bw.Write(b)
	}
	return bw.Flush()
}

// ParseHistory reads a history written by EncodeHistory. It refuses, with
// the line number and the reason, a missing header, malformed JSON,
// unknown fields, invalid kinds or outcomes, ids not ascending, and any
// operation that fails HistoryOp.Validate.
func ParseHistory(r io.Reader) (*History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), HistoryLineLenMax)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("history parse: header: %w", err)
		}
		return nil, fmt.Errorf("history parse refused: empty input, want header %q", historyHeader)
	}
	if sc.Text() != historyHeader && sc.Text() != historyHeaderV1 {
		return nil, fmt.Errorf("history parse refused: line 1 is %.40q, want header %q (or the older %q)", sc.Text(), historyHeader, historyHeaderV1)
	}
	h := &History{}
	for line := 2; sc.Scan(); line++ {
		if len(h.Ops) >= HistoryOpsMax {
			return nil, fmt.Errorf("history parse refused: more than %d operations", HistoryOpsMax)
		}
		op, err := parseHistoryLine(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("history parse refused: line %d: %w", line, err)
		}
		if n := len(h.Ops); n > 0 && op.ID <= h.Ops[n-1].ID {
			return nil, fmt.Errorf("history parse refused: line %d: op id %d not above the previous %d", line, op.ID, h.Ops[n-1].ID)
		}
		h.Ops = append(h.Ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history parse: %w", err)
	}
	return h, nil
}

// AppendHistoryLine appends op's line of the history encoding (its JSON
// object and a newline) to b; an operation that fails Validate is refused.
func AppendHistoryLine(b []byte, op *HistoryOp) ([]byte, error) {
	if err := op.Validate(); err != nil {
		return b, fmt.Errorf("refused: %w", err)
	}
	j, err := json.Marshal(opJSONOf(op))
	if err != nil {
		return b, err
	}
	return append(append(b, j...), '\n'), nil
}

// ParseHistoryLine reads one line AppendHistoryLine wrote (without its
// newline) back to an equal operation, refusing what ParseHistory refuses
// of a line.
func ParseHistoryLine(b []byte) (HistoryOp, error) { return parseHistoryLine(b) }

func parseHistoryLine(b []byte) (HistoryOp, error) {
	var j opJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return HistoryOp{}, err
	}
	if dec.More() {
		return HistoryOp{}, fmt.Errorf("trailing data after the operation")
	}
	if j.Record == nil && j.ExpectedOffset != 0 {
		return HistoryOp{}, fmt.Errorf("op %d: expected offset %d without a record", j.ID, j.ExpectedOffset)
	}
	op, err := j.historyOp()
	if err != nil {
		return HistoryOp{}, err
	}
	return op, op.Validate()
}

// Validate checks an operation's shape: a valid kind and outcome, a
// positive id, a record exactly for writes and live publishes, times in order.
func (op *HistoryOp) Validate() error {
	switch {
	case op.ID == 0:
		return fmt.Errorf("op id 0 is reserved")
	case op.Kind == historyKindInvalid || op.Kind >= historyKindEnd:
		return fmt.Errorf("op %d: kind %d is invalid", op.ID, uint8(op.Kind))
	case op.Outcome == outcomeInvalid || op.Outcome >= outcomeEnd:
		return fmt.Errorf("op %d: outcome %d is invalid", op.ID, uint8(op.Outcome))
	case op.Kind.CarriesRecord() != (op.Record != nil):
		return fmt.Errorf("op %d: %s with record present=%t", op.ID, op.Kind, op.Record != nil)
	case op.Record != nil && op.Record.Conditional != op.Kind.IsConditional():
		return fmt.Errorf("op %d: %s with a record whose conditional=%t", op.ID, op.Kind, op.Record.Conditional)
	case op.Record != nil && !op.Record.Conditional && op.Record.ExpectedOffset != 0:
		return fmt.Errorf("op %d: unconditional %s expects offset %d", op.ID, op.Kind, op.Record.ExpectedOffset)
	case op.RetryOf >= op.ID:
		return fmt.Errorf("op %d: retry of op %d, which is not earlier", op.ID, op.RetryOf)
	case op.InvokeNs < 0:
		return fmt.Errorf("op %d: invoked at %d ns, negative", op.ID, op.InvokeNs)
	case op.Outcome == OutcomePending && op.CompleteNs != 0:
		return fmt.Errorf("op %d: pending but completed at %d ns", op.ID, op.CompleteNs)
	case op.Outcome != OutcomePending && op.CompleteNs < op.InvokeNs:
		return fmt.Errorf("op %d: completed at %d ns before its invocation at %d ns", op.ID, op.CompleteNs, op.InvokeNs)
	case op.NotSent && (op.Outcome != OutcomeFailed || op.CompleteNs != op.InvokeNs):
		return fmt.Errorf("op %d: not sent, yet %s at %d ns after its invocation at %d ns", op.ID, op.Outcome, op.CompleteNs, op.InvokeNs)
	case op.Outcome == OutcomeRefused && !op.Kind.IsConditional():
		return fmt.Errorf("op %d: %s cannot be refused", op.ID, op.Kind)
	case op.Requests != nil && (!op.Kind.RecordsRequests() || op.NotSent || len(op.Requests) == 0):
		return fmt.Errorf("op %d: %d requests recorded for a %s with not sent=%t; only a sent write, live publish, live read, group fetch or ack has requests, at least one",
			op.ID, len(op.Requests), op.Kind, op.NotSent)
	case (op.LeaseNs != 0 || op.LeaseExpiryNs != 0) && op.Kind != HistoryGroupFetch:
		return fmt.Errorf("op %d: a %s with lease %d ns, expiry %d ns; only a group fetch has a lease", op.ID, op.Kind, op.LeaseNs, op.LeaseExpiryNs)
	case op.LeaseNs < 0 || op.LeaseExpiryNs < 0:
		return fmt.Errorf("op %d: lease %d ns, expiry %d ns: negative", op.ID, op.LeaseNs, op.LeaseExpiryNs)
	}
	for i := range op.Requests {
		if !op.Requests[i].Answer.Valid() {
			return fmt.Errorf("op %d: request %d: answer %d is invalid", op.ID, op.Requests[i].ID, uint8(op.Requests[i].Answer))
		}
		if i > 0 && op.Requests[i].ID <= op.Requests[i-1].ID {
			return fmt.Errorf("op %d: request %d follows request %d: a call's request ids ascend", op.ID, op.Requests[i].ID, op.Requests[i-1].ID)
		}
	}
	if op.Record != nil {
		if err := checkRecordKinds(op.Record); err != nil {
			return fmt.Errorf("op %d: record: %w", op.ID, err)
		}
	}
	for i := range op.Entries {
		e := &op.Entries[i].Record
		if err := checkRecordKinds(e); err != nil {
			return fmt.Errorf("op %d: entry %d: %w", op.ID, i, err)
		}
		if e.Conditional || e.ExpectedOffset != 0 {
			return fmt.Errorf("op %d: entry %d carries a condition, which the encoding cannot", op.ID, i)
		}
	}
	return nil
}

// checkRecordKinds refuses an event or operation kind the encoding cannot
// spell (it has one flag for each: enqueue, delete). Sizes are not checked:
// a history records what a client tried, refused calls included.
func checkRecordKinds(r *felix.Record) error {
	if r.Event != felix.EventPublish && r.Event != felix.EventEnqueue {
		return fmt.Errorf("event kind %s is neither publish nor enqueue", r.Event)
	}
	for i := range r.Ops {
		if k := r.Ops[i].Kind; k != felix.OpPut && k != felix.OpDelete {
			return fmt.Errorf("operation %d: kind %s is neither put nor delete", i, k)
		}
	}
	return nil
}

// The v1 JSON form of an operation. These types exist only to keep the
// encoding's field names and shapes, which predate package felix: a
// history written before must still decode (testdata/history-v1.jsonl).

type scopeJSON struct {
	Tenant    string `json:"tenant"`
	Namespace string `json:"namespace"`
	Stream    string `json:"stream"`
	Shard     uint32 `json:"shard"`
}

type stateOpJSON struct {
	Delete bool   `json:"delete,omitempty"`
	Key    string `json:"key"`
	Value  []byte `json:"value,omitempty"`
}

type recordJSON struct {
	Enqueue bool          `json:"enqueue,omitempty"`
	Payload []byte        `json:"payload"`
	Ops     []stateOpJSON `json:"ops,omitempty"`
}

type entryJSON struct {
	Offset uint64     `json:"offset"`
	Record recordJSON `json:"record"`
}

type opJSON struct {
	ID             uint64         `json:"id"`
	Client         int            `json:"client"`
	RetryOf        uint64         `json:"retry_of,omitempty"`
	Kind           HistoryKind    `json:"kind"`
	Scope          scopeJSON      `json:"scope"`
	EntityKey      string         `json:"entity_key,omitempty"`
	Record         *recordJSON    `json:"record,omitempty"`
	ExpectedOffset uint64         `json:"expected_offset,omitempty"`
	Key            string         `json:"key,omitempty"`
	FromOffset     uint64         `json:"from_offset,omitempty"`
	MaxEntries     uint32         `json:"max_entries,omitempty"`
	Group          string         `json:"group,omitempty"`
	AckOffset      uint64         `json:"ack_offset,omitempty"`
	LeaseNs        int64          `json:"lease_ns,omitempty"`
	LeaseExpiryNs  int64          `json:"lease_expiry_ns,omitempty"`
	InvokeNs       int64          `json:"invoke_ns"`
	CompleteNs     int64          `json:"complete_ns,omitempty"`
	Outcome        HistoryOutcome `json:"outcome"`
	Offset         uint64         `json:"offset,omitempty"`
	Tail           uint64         `json:"tail,omitempty"`
	Found          bool           `json:"found,omitempty"`
	Value          []byte         `json:"value,omitempty"`
	Version        uint64         `json:"version,omitempty"`
	Entries        []entryJSON    `json:"entries,omitempty"`
	Error          string         `json:"error,omitempty"`
	NotSent        bool           `json:"not_sent,omitempty"`
	Requests       []requestJSON  `json:"requests,omitempty"`
}

// requestJSON is one request of a write. Broker and answer came later
// than the rest; a request without them decodes as broker 0, answer
// unrecorded (and encodes back without them).
type requestJSON struct {
	ID        uint64 `json:"id"`
	Broker    uint64 `json:"broker,omitempty"`
	Answer    string `json:"answer,omitempty"`
	Delivered uint32 `json:"delivered"`
}

func requestJSONOf(q HistoryRequest) requestJSON {
	j := requestJSON{ID: q.ID, Broker: q.Broker, Delivered: q.Delivered}
	if q.Answer != AnswerUnrecorded {
		j.Answer = q.Answer.String()
	}
	return j
}

// historyRequest is j in memory; an answer that is not one of the
// history's names (or spells out the omitted "unrecorded") is refused.
func (j *requestJSON) historyRequest() (HistoryRequest, error) {
	q := HistoryRequest{ID: j.ID, Broker: j.Broker, Answer: AnswerUnrecorded, Delivered: j.Delivered}
	if j.Answer == "" {
		return q, nil
	}
	a, err := ParseHistoryAnswer(j.Answer)
	if err != nil || a == AnswerUnrecorded {
		return HistoryRequest{}, fmt.Errorf("request %d: answer %q refused: not one of the history's answers", j.ID, j.Answer)
	}
	q.Answer = a
	return q, nil
}

// opJSONOf is op in its JSON form; a conditional record's expected offset
// is the operation's expected_offset.
func opJSONOf(op *HistoryOp) *opJSON {
	j := &opJSON{ID: op.ID, Client: op.Client, RetryOf: op.RetryOf, Kind: op.Kind,
		Scope:     scopeJSON{Tenant: op.Scope.Tenant, Namespace: op.Scope.Namespace, Stream: op.Scope.Stream, Shard: op.Scope.Shard},
		EntityKey: op.EntityKey, Key: op.Key, FromOffset: op.FromOffset, MaxEntries: op.MaxEntries,
		Group: op.Group, AckOffset: op.AckOffset, LeaseNs: op.LeaseNs, LeaseExpiryNs: op.LeaseExpiryNs,
		InvokeNs: op.InvokeNs, CompleteNs: op.CompleteNs,
		Outcome: op.Outcome, Offset: op.Offset, Tail: op.Tail, Found: op.Found, Value: op.Value,
		Version: op.Version, Error: op.Error, NotSent: op.NotSent}
	if op.Record != nil {
		r := recordJSONOf(op.Record)
		j.Record, j.ExpectedOffset = &r, op.Record.ExpectedOffset
	}
	if len(op.Entries) > 0 {
		j.Entries = make([]entryJSON, len(op.Entries))
		for i := range op.Entries {
			j.Entries[i] = entryJSON{Offset: op.Entries[i].Offset, Record: recordJSONOf(&op.Entries[i].Record)}
		}
	}
	for _, q := range op.Requests {
		j.Requests = append(j.Requests, requestJSONOf(q))
	}
	return j
}

// historyOp is j in memory; a record's condition follows the kind.
func (j *opJSON) historyOp() (HistoryOp, error) {
	op := HistoryOp{ID: j.ID, Client: j.Client, RetryOf: j.RetryOf, Kind: j.Kind,
		Scope:     felix.Scope{Tenant: j.Scope.Tenant, Namespace: j.Scope.Namespace, Stream: j.Scope.Stream, Shard: j.Scope.Shard},
		EntityKey: j.EntityKey, Key: j.Key, FromOffset: j.FromOffset, MaxEntries: j.MaxEntries,
		Group: j.Group, AckOffset: j.AckOffset, LeaseNs: j.LeaseNs, LeaseExpiryNs: j.LeaseExpiryNs,
		InvokeNs: j.InvokeNs, CompleteNs: j.CompleteNs,
		Outcome: j.Outcome, Offset: j.Offset, Tail: j.Tail, Found: j.Found, Value: j.Value,
		Version: j.Version, Error: j.Error, NotSent: j.NotSent}
	if j.Record != nil {
		r := j.Record.record()
		r.Conditional, r.ExpectedOffset = j.Kind.IsConditional(), j.ExpectedOffset
		op.Record = &r
	}
	if len(j.Entries) > 0 {
		op.Entries = make([]felix.Entry, len(j.Entries))
		for i := range j.Entries {
			op.Entries[i] = felix.Entry{Offset: j.Entries[i].Offset, Record: j.Entries[i].Record.record()}
		}
	}
	for i := range j.Requests {
		q, err := j.Requests[i].historyRequest()
		if err != nil {
			return HistoryOp{}, fmt.Errorf("op %d: %w", j.ID, err)
		}
		op.Requests = append(op.Requests, q)
	}
	return op, nil
}

func recordJSONOf(r *felix.Record) recordJSON {
	j := recordJSON{Enqueue: r.Event == felix.EventEnqueue, Payload: r.Payload}
	if len(r.Ops) > 0 {
		j.Ops = make([]stateOpJSON, len(r.Ops))
		for i, o := range r.Ops {
			j.Ops[i] = stateOpJSON{Delete: o.Kind == felix.OpDelete, Key: o.Key, Value: o.Value}
		}
	}
	return j
}

func (j *recordJSON) record() felix.Record {
	r := felix.Record{Event: felix.EventPublish, Payload: j.Payload}
	if j.Enqueue {
		r.Event = felix.EventEnqueue
	}
	if len(j.Ops) > 0 {
		r.Ops = make([]felix.StateOp, len(j.Ops))
		for i, o := range j.Ops {
			r.Ops[i] = felix.StateOp{Kind: felix.OpPut, Key: o.Key, Value: o.Value}
			if o.Delete {
				r.Ops[i].Kind = felix.OpDelete
			}
		}
	}
	return r
}
