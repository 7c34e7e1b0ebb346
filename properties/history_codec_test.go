package properties

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"pgregory.net/rapid"
)

func drawBytes(t *rapid.T, label string) []byte {
	b := rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, label)
	if len(b) == 0 {
		return nil
	}
	return b
}

func drawRecord(t *rapid.T) *felix.Record {
	r := &felix.Record{Event: rapid.SampledFrom([]felix.EventKind{felix.EventPublish, felix.EventEnqueue}).Draw(t, "event"),
		Payload: drawBytes(t, "payload")}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "ops"); i < n; i++ {
		op := felix.StateOp{Kind: rapid.SampledFrom([]felix.OpKind{felix.OpPut, felix.OpDelete}).Draw(t, "opkind"),
			Key: rapid.StringN(1, 8, -1).Draw(t, "key")}
		if op.Kind == felix.OpPut {
			op.Value = drawBytes(t, "value")
		}
		r.Ops = append(r.Ops, op)
	}
	return r
}

// drawHistory draws a valid history: ids ascending, every kind and
// outcome, results for each kind, strings with arbitrary runes.
func drawHistory(t *rapid.T) *History {
	h := &History{}
	var id uint64
	for i, n := 0, rapid.IntRange(0, 12).Draw(t, "n"); i < n; i++ {
		id += rapid.Uint64Range(1, 5).Draw(t, "idgap")
		op := HistoryOp{ID: id, Client: rapid.IntRange(0, 7).Draw(t, "client"),
			Kind:     HistoryKind(rapid.IntRange(1, int(historyKindEnd)-1).Draw(t, "kind")),
			Scope:    felix.Scope{Tenant: rapid.String().Draw(t, "tenant"), Namespace: "orders", Stream: "s", Shard: rapid.Uint32Range(0, 9).Draw(t, "shard")},
			Outcome:  HistoryOutcome(rapid.IntRange(1, int(outcomeEnd)-1).Draw(t, "outcome")),
			InvokeNs: rapid.Int64Range(0, 1e12).Draw(t, "invoke")}
		if op.Outcome == OutcomeRefused && !op.Kind.IsConditional() {
			op.Outcome = OutcomeFailed
		}
		if op.Outcome != OutcomePending {
			op.CompleteNs = op.InvokeNs + rapid.Int64Range(0, 1e9).Draw(t, "lat")
		}
		if op.Kind.CarriesRecord() {
			op.Record = drawRecord(t)
			op.Offset = rapid.Uint64().Draw(t, "offset")
			if op.Kind.IsConditional() {
				op.Record.Conditional, op.Record.ExpectedOffset = true, rapid.Uint64().Draw(t, "expected")
			}
			if id > 1 && rapid.Bool().Draw(t, "retry") {
				op.RetryOf = rapid.Uint64Range(1, id-1).Draw(t, "retryOf")
			}
		}
		if op.Kind.RecordsRequests() {
			for q, m := uint64(0), rapid.IntRange(0, 3).Draw(t, "requests"); len(op.Requests) < m; {
				q += rapid.Uint64Range(1, 9).Draw(t, "reqgap")
				op.Requests = append(op.Requests, HistoryRequest{ID: q, Broker: rapid.Uint64Range(0, 5).Draw(t, "broker"),
					Answer:    HistoryAnswer(rapid.IntRange(int(AnswerUnrecorded), int(historyAnswerEnd)-1).Draw(t, "answer")),
					Delivered: rapid.Uint32Range(0, 3).Draw(t, "delivered")})
			}
		}
		if op.Kind == HistoryGroupFetch {
			op.LeaseNs, op.LeaseExpiryNs = rapid.Int64Range(0, 1e10).Draw(t, "lease"), rapid.Int64Range(0, 1e12).Draw(t, "expiry")
		}
		op.Key = rapid.String().Draw(t, "skey")
		op.Found = rapid.Bool().Draw(t, "found")
		op.Value = drawBytes(t, "rvalue")
		op.Version = rapid.Uint64().Draw(t, "version")
		for j, m := 0, rapid.IntRange(0, 2).Draw(t, "entries"); j < m; j++ {
			op.Entries = append(op.Entries, felix.Entry{Offset: rapid.Uint64().Draw(t, "eoff"), Record: *drawRecord(t)})
		}
		op.Error = rapid.String().Draw(t, "err")
		h.Ops = append(h.Ops, op)
	}
	return h
}

// TestHistoryRoundTrip: encode then parse gives back an equal history.
func TestHistoryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := drawHistory(t)
		var buf bytes.Buffer
		if err := EncodeHistory(&buf, h); err != nil {
			t.Fatal(err)
		}
		got, err := ParseHistory(&buf)
		if err != nil {
			t.Fatalf("parse of encoded history: %v\n%s", err, buf.String())
		}
		if len(h.Ops) == 0 && len(got.Ops) == 0 {
			return
		}
		if !reflect.DeepEqual(h, got) {
			t.Fatalf("round trip differs:\nwant %+v\n got %+v", h, got)
		}
	})
}

// TestParseHistoryRefuses: malformed inputs are refused with a reason,
// never a panic.
func TestParseHistoryRefuses(t *testing.T) {
	ok := `{"id":1,"client":0,"kind":"state_get","scope":{"tenant":"a","namespace":"n","stream":"s","shard":0},"invoke_ns":5,"complete_ns":6,"outcome":"ok"}`
	cases := map[string]string{
		"empty":               "",
		"bad header":          "felixsim-history v0\n",
		"bad json":            historyHeader + "\n{",
		"unknown field":       historyHeader + "\n" + strings.Replace(ok, `"client":0`, `"client":0,"extra":1`, 1),
		"bad kind":            historyHeader + "\n" + strings.Replace(ok, "state_get", "steal", 1),
		"missing kind":        historyHeader + "\n" + strings.Replace(ok, `"kind":"state_get",`, "", 1),
		"bad outcome":         historyHeader + "\n" + strings.Replace(ok, `"ok"`, `"fine"`, 1),
		"id zero":             historyHeader + "\n" + strings.Replace(ok, `"id":1`, `"id":0`, 1),
		"ids descending":      historyHeader + "\n" + ok + "\n" + ok,
		"write no rec":        historyHeader + "\n" + strings.Replace(ok, "state_get", "commit", 1),
		"time reversed":       historyHeader + "\n" + strings.Replace(ok, `"complete_ns":6`, `"complete_ns":4`, 1),
		"refused read":        historyHeader + "\n" + strings.Replace(ok, `"ok"`, `"refused"`, 1),
		"trailing":            historyHeader + "\n" + ok + " {}",
		"expected, no record": historyHeader + "\n" + strings.Replace(ok, `"invoke_ns"`, `"expected_offset":3,"invoke_ns"`, 1),
		"unconditional expects": historyHeader + "\n" + strings.Replace(strings.Replace(ok, "state_get", "commit", 1),
			`"invoke_ns"`, `"record":{"payload":"eA=="},"expected_offset":3,"invoke_ns"`, 1),
		"unknown answer":       historyHeader + "\n" + strings.Replace(sentWrite, `"NotLeader"`, `"Maybe"`, 1),
		"spelled unrecorded":   historyHeader + "\n" + strings.Replace(sentWrite, `"NotLeader"`, `"unrecorded"`, 1),
		"answer of no request": historyHeader + "\n" + strings.Replace(sentWrite, `"NotLeader"`, `"invalid"`, 1),
		"request field":        historyHeader + "\n" + strings.Replace(sentWrite, `"broker":2`, `"broker":2,"copies":1`, 1),
		"requests of a read":   historyHeader + "\n" + strings.Replace(ok, `"outcome":"ok"`, `"outcome":"ok","requests":[{"id":7,"delivered":1}]`, 1),
		"lease of a read":      historyHeader + "\n" + strings.Replace(ok, `"invoke_ns"`, `"lease_ns":5,"invoke_ns"`, 1),
		"negative lease":       historyHeader + "\n" + strings.Replace(strings.Replace(ok, "state_get", "group_fetch", 1), `"invoke_ns"`, `"lease_ns":-5,"invoke_ns"`, 1),
	}
	for name, in := range cases {
		if _, err := ParseHistory(strings.NewReader(in)); err == nil {
			t.Errorf("%s: parse accepted %q", name, in)
		}
	}
	if h, err := ParseHistory(strings.NewReader(historyHeader + "\n" + ok + "\n")); err != nil || len(h.Ops) != 1 {
		t.Fatalf("valid one-op history: %v %+v", err, h)
	}
	h, err := ParseHistory(strings.NewReader(historyHeader + "\n" + sentWrite + "\n"))
	if err != nil {
		t.Fatalf("valid sent write: %v", err)
	}
	want := []HistoryRequest{{ID: 7, Broker: 2, Answer: AnswerNotLeader, Delivered: 1}, {ID: 8, Broker: 3, Answer: AnswerNone, Delivered: 0}, {ID: 9, Answer: AnswerUnrecorded, Delivered: 2}}
	if !reflect.DeepEqual(h.Ops[0].Requests, want) {
		t.Fatalf("sent write's requests %+v, want %+v", h.Ops[0].Requests, want)
	}
}

// sentWrite is one encoded write with its requests: one answered
// NotLeader, one with no answer, and one from a history written before
// brokers and answers were recorded (unrecorded).
const sentWrite = `{"id":1,"client":0,"kind":"commit","scope":{"tenant":"a","namespace":"n","stream":"s","shard":0},"record":{"payload":"eA=="},"invoke_ns":5,"complete_ns":6,"outcome":"unknown",` +
	`"requests":[{"id":7,"broker":2,"answer":"NotLeader","delivered":1},{"id":8,"broker":3,"answer":"none","delivered":0},{"id":9,"delivered":2}]}`

// FuzzParseHistory: any input parses to a valid history that re-encodes
// and re-parses equal, or is refused with an error; never a panic.
func FuzzParseHistory(f *testing.F) {
	f.Add([]byte(historyHeader + "\n"))
	f.Add([]byte(historyHeader + "\n" + `{"id":1,"client":0,"kind":"commit","scope":{"tenant":"a","namespace":"n","stream":"s","shard":0},"record":{"payload":"eA=="},"invoke_ns":5,"complete_ns":6,"outcome":"unknown"}` + "\n"))
	f.Add([]byte(historyHeader + "\n" + sentWrite + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := ParseHistory(bytes.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := EncodeHistory(&buf, h); err != nil {
			t.Fatalf("parsed history does not re-encode: %v", err)
		}
		h2, err := ParseHistory(&buf)
		if err != nil {
			t.Fatalf("re-encoded history does not parse: %v", err)
		}
		if len(h.Ops) != len(h2.Ops) {
			t.Fatalf("re-parse has %d ops, want %d", len(h2.Ops), len(h.Ops))
		}
	})
}
