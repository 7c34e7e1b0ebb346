package statemachine

import (
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"pgregory.net/rapid"
)

// The rapid state-machine test: random commands against a Shard and the
// reference model in model_test.go, checking after every step that the
// shard's log, state, versions and groups match the model's fold.

var (
	testKeys   = []string{"a", "b", "c", "d"}
	testGroups = []string{"g1", "g2", "g3"}
)

type harness struct {
	s     *Shard
	m     *model
	nowNs int64
}

func drawConfig(t *rapid.T) Config {
	kind := StreamQuorum
	if rapid.IntRange(0, 4).Draw(t, "ephemeral") == 0 {
		kind = StreamEphemeral
	}
	return Config{
		Scope:              felix.Scope{Tenant: "t", Namespace: "n", Stream: "s"},
		Kind:               kind,
		RetainedLenMax:     rapid.IntRange(1, 24).Draw(t, "retainedLenMax"),
		ReplayWindowLenMax: rapid.IntRange(1, 12).Draw(t, "replayWindowLenMax"),
		GroupsMax:          rapid.IntRange(1, 3).Draw(t, "groupsMax"),
		LeasesPerGroupMax:  rapid.IntRange(1, 5).Draw(t, "leasesPerGroupMax"),
	}
}

func drawOp(t *rapid.T) felix.StateOp {
	key := rapid.SampledFrom(testKeys).Draw(t, "key")
	switch rapid.IntRange(0, 9).Draw(t, "opShape") {
	case 0, 1, 2:
		return felix.StateOp{Kind: felix.OpDelete, Key: key}
	case 3:
		// Invalid on purpose: one of the shapes Validate refuses.
		return rapid.SampledFrom([]felix.StateOp{
			{Kind: felix.OpPut, Key: ""},
			{Kind: felix.OpInvalid, Key: key},
			{Kind: felix.OpDelete, Key: key, Value: []byte("x")},
		}).Draw(t, "badOp")
	}
	return felix.StateOp{Kind: felix.OpPut, Key: key, Value: []byte(rapid.StringN(0, 3, 3).Draw(t, "value"))}
}

func (h *harness) drawRecord(t *rapid.T) felix.Record {
	r := felix.Record{
		Event:   rapid.SampledFrom([]felix.EventKind{felix.EventPublish, felix.EventEnqueue, felix.EventPublish, felix.EventEnqueue, felix.EventInvalid}).Draw(t, "event"),
		Payload: []byte(rapid.StringN(0, 4, 4).Draw(t, "payload")),
	}
	if rapid.Bool().Draw(t, "commit") {
		n := rapid.IntRange(1, 4).Draw(t, "opCount")
		for i := 0; i < n; i++ {
			r.Ops = append(r.Ops, drawOp(t))
		}
	}
	if rapid.IntRange(0, 2).Draw(t, "conditional") == 0 {
		r.Conditional = true
		d := rapid.IntRange(-2, 2).Draw(t, "expectedDelta")
		r.ExpectedOffset = uint64(max(0, int64(h.m.tail())+int64(d)))
	}
	return r
}

func (h *harness) apply(t *rapid.T) {
	r := h.drawRecord(t)
	gotRes, gotErr := h.s.Apply(&r, Features{AtomicCommitFinalized: h.m.feat})
	wantRes, wantErr := h.m.apply(r)
	if !sameErr(gotErr, wantErr) || gotRes != wantRes {
		t.Fatalf("apply %+v: got %v, %v; model says %v, %v", r, gotRes, gotErr, wantRes, wantErr)
	}
}

func (h *harness) read(t *rapid.T) {
	off := uint64(rapid.IntRange(0, int(h.m.tail())+1).Draw(t, "readFrom"))
	n := rapid.IntRange(1, 5).Draw(t, "readMax")
	got, gotErr := h.s.ReadFrom(off, n)
	want, wantErr := h.m.readFrom(off, n)
	if !sameErr(gotErr, wantErr) {
		t.Fatalf("ReadFrom(%d, %d): got error %v, model says %v", off, n, gotErr, wantErr)
	}
	if wantErr != nil {
		var oe *OffsetError
		if !errors.As(gotErr, &oe) || oe.StartOffset != h.m.windowStart() || oe.Tail != h.m.tail() {
			t.Fatalf("ReadFrom(%d): error %v should carry start %d tail %d", off, gotErr, h.m.windowStart(), h.m.tail())
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("ReadFrom(%d, %d): got %d entries, model says %d", off, n, len(got), len(want))
	}
	for i, e := range got {
		h.checkEntry(t, e, want[i])
	}
}

func (h *harness) checkEntry(t *rapid.T, e felix.Entry, off uint64) {
	if e.Offset != off || fmt.Sprint(e.Record) != fmt.Sprint(h.m.recs[off]) {
		t.Fatalf("entry at %d is %+v, model has offset %d: %+v", e.Offset, e.Record, off, h.m.recs[off])
	}
}

func (h *harness) fetch(t *rapid.T) {
	h.nowNs += int64(rapid.IntRange(0, 20).Draw(t, "advanceNs"))
	c := GroupFetch{
		Group:      rapid.SampledFrom(testGroups).Draw(t, "group"),
		NowNs:      h.nowNs,
		LeaseNs:    int64(rapid.IntRange(1, 15).Draw(t, "leaseNs")),
		EntriesMax: rapid.IntRange(1, 4).Draw(t, "fetchMax"),
	}
	got, gotErr := h.s.Fetch(c)
	want, wantErr := h.m.fetch(c)
	if !sameErr(gotErr, wantErr) || len(got) != len(want) {
		t.Fatalf("fetch %+v: got %d deliveries, %v; model says %d, %v", c, len(got), gotErr, len(want), wantErr)
	}
	for i, d := range got {
		w := want[i]
		if d.Entry.Offset != w.offset || d.ExpiryNs != w.expiryNs || d.Redelivered != w.redelivered {
			t.Fatalf("fetch %+v delivery %d: got offset %d expiry %d redelivered %v; model says %+v",
				c, i, d.Entry.Offset, d.ExpiryNs, d.Redelivered, w)
		}
		h.checkEntry(t, d.Entry, w.offset)
	}
}

func (h *harness) ack(t *rapid.T) {
	c := GroupAck{
		Group:  rapid.SampledFrom(testGroups).Draw(t, "group"),
		Offset: uint64(rapid.IntRange(0, int(h.m.tail())).Draw(t, "ackOffset")),
	}
	if got, want := h.s.Ack(c), h.m.ack(c); !sameErr(got, want) {
		t.Fatalf("ack %+v: got %v, model says %v", c, got, want)
	}
}

func (h *harness) drop(t *rapid.T) {
	off := uint64(rapid.IntRange(0, int(h.m.tail())+1).Draw(t, "dropBefore"))
	if got, want := h.s.DropBefore(off), h.m.dropBefore(off); !sameErr(got, want) {
		t.Fatalf("DropBefore(%d): got %v, model says %v", off, got, want)
	}
}

// rebuild restores a fresh shard from the retained log and the groups and
// checks what retention kept and lost, then carries on with the rebuilt one.
func (h *harness) rebuild(t *rapid.T) {
	snap := h.s.Snapshot()
	s, err := Rebuild(snap.RebuildInput(h.s.Config()))
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	// Rebuilding a rebuilt shard changes nothing: the fold is idempotent.
	first := s.Snapshot()
	again, err := Rebuild(first.RebuildInput(s.Config()))
	if err != nil {
		t.Fatalf("second rebuild: %v", err)
	}
	if second := again.Snapshot(); second.Digest() != first.Digest() {
		t.Fatalf("rebuild is not idempotent: %+v then %+v", first, second)
	}
	rebuilt := h.m.fold(h.m.first)
	lastWrite := h.lastWrites()
	for _, k := range testKeys {
		v, ver, ok := s.StateGet(k)
		lw, written := lastWrite[k]
		switch {
		case written && lw >= h.m.first:
			// Last write retained: the rebuild equals incremental application.
			if lv, lver, lok := h.s.StateGet(k); ok != lok || string(v) != string(lv) || (ok && ver != lver) {
				t.Fatalf("key %q last written at retained %d: rebuilt (%q, %d, %v), live (%q, %d, %v)", k, lw, v, ver, ok, lv, lver, lok)
			}
		case ok:
			// Last write dropped (or never written): the key is gone.
			t.Fatalf("key %q last written at %d (written %v), below first %d, still reads (%q, %d)", k, lw, written, h.m.first, v, ver)
		}
		if rv, rok := rebuilt[k]; ok != rok || string(v) != rv.value || ver != rv.version {
			t.Fatalf("key %q: rebuilt (%q, %d, %v), model fold of retained log (%+v, %v)", k, v, ver, ok, rv, rok)
		}
	}
	h.s = s
}

// lastWrites maps each key to the offset of the last record that put or
// deleted it, over the whole history.
func (h *harness) lastWrites() map[string]uint64 {
	out := map[string]uint64{}
	for off, r := range h.m.recs {
		for _, op := range r.Ops {
			out[op.Key] = uint64(off)
		}
	}
	return out
}

// check runs after every step: the shard agrees with the model.
func (h *harness) check(t *rapid.T) {
	if h.s.NextOffset() != h.m.tail() || h.s.FirstOffset() != h.m.first || h.s.WindowStart() != h.m.windowStart() {
		t.Fatalf("offsets: shard first %d next %d window %d; model first %d next %d window %d",
			h.s.FirstOffset(), h.s.NextOffset(), h.s.WindowStart(), h.m.first, h.m.tail(), h.m.windowStart())
	}
	ret := h.s.Retained()
	if uint64(len(ret)) != h.m.tail()-h.m.first {
		t.Fatalf("retained %d entries, model %d", len(ret), h.m.tail()-h.m.first)
	}
	for i, e := range ret {
		h.checkEntry(t, e, h.m.first+uint64(i))
	}
	h.checkState(t)
	h.checkGroups(t)
}

// checkState: StateMatchesLog (the state is the model's fold) and
// VersionIsOffset (a retained version's record put exactly that value).
func (h *harness) checkState(t *rapid.T) {
	want := h.m.fold(h.m.first)
	got := h.s.State()
	if len(got) != len(want) || h.s.StateLen() != len(want) {
		t.Fatalf("state has %d keys (%+v), model fold has %d (%+v)", len(got), got, len(want), want)
	}
	for i, kv := range got {
		w, ok := want[kv.Key]
		if !ok || string(kv.Value) != w.value || kv.Version != w.version || (i > 0 && got[i-1].Key >= kv.Key) {
			t.Fatalf("state key %q = (%q, v%d); model fold (%+v, %v)", kv.Key, kv.Value, kv.Version, w, ok)
		}
		if kv.Version >= h.m.first {
			var last *felix.StateOp
			for j, op := range ret(h, kv.Version).Ops {
				if op.Key == kv.Key {
					last = &ret(h, kv.Version).Ops[j]
				}
			}
			if last == nil || last.Kind != felix.OpPut || string(last.Value) != string(kv.Value) {
				t.Fatalf("VersionIsOffset: key %q = %q at version %d, but that record's last op on it is %+v", kv.Key, kv.Value, kv.Version, last)
			}
		}
	}
}

func ret(h *harness, off uint64) *felix.Record { return &h.s.Retained()[off-h.s.FirstOffset()].Record }

func (h *harness) checkGroups(t *rapid.T) {
	got := h.s.Groups()
	names := make([]string, 0, len(h.m.groups))
	for n := range h.m.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	low := h.m.tail()
	for _, n := range names {
		low = min(low, h.m.groups[n].committed())
	}
	if h.s.GroupsCommittedMin() != low {
		t.Fatalf("GroupsCommittedMin %d, model %d", h.s.GroupsCommittedMin(), low)
	}
	if len(got) != len(names) {
		t.Fatalf("shard has %d groups, model %v", len(got), names)
	}
	prefix := GroupPosition{Name: "kept", CommittedOffset: 7}
	pos := h.s.AppendGroupPositions([]GroupPosition{prefix})
	if len(pos) != len(names)+1 || pos[0] != prefix {
		t.Fatalf("AppendGroupPositions after %+v: %+v, model groups %v", prefix, pos, names)
	}
	for i, n := range names {
		if p := pos[i+1]; p.Name != n || p.CommittedOffset != h.m.groups[n].committed() {
			t.Fatalf("AppendGroupPositions[%d] = %+v, model group %q committed %d (all: %+v)", i, p, n, h.m.groups[n].committed(), pos)
		}
	}
	for i, n := range names {
		g, mg := got[i], h.m.groups[n]
		flight := mg.inFlight()
		if g.Name != n || g.CommittedOffset != mg.committed() || g.DeliverNextOffset != mg.next || len(g.Leases) != len(flight) {
			t.Fatalf("group %q: shard %+v; model committed %d next %d in flight %v", n, g, mg.committed(), mg.next, flight)
		}
		for j, l := range g.Leases {
			if l.Offset != flight[j] || l.ExpiryNs != mg.expiry[l.Offset] {
				t.Fatalf("group %q lease %d: shard %+v, model offset %d expiry %d", n, j, l, flight[j], mg.expiry[flight[j]])
			}
		}
	}
}

func TestShardMatchesModel(t *testing.T) { rapid.Check(t, shardMatchesModel) }

func shardMatchesModel(t *rapid.T) {
	cfg := drawConfig(t)
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h := &harness{s: s, m: newModel(cfg)}
	prevCommitted := map[string]uint64{}
	t.Repeat(map[string]func(*rapid.T){
		"apply":  h.apply,
		"apply2": h.apply,
		"apply3": h.apply,
		"burst": func(t *rapid.T) {
			for n := rapid.IntRange(1, 8).Draw(t, "burstLen"); n > 0; n-- {
				h.apply(t)
			}
		},
		"read":    h.read,
		"fetch":   h.fetch,
		"fetch2":  h.fetch,
		"ack":     h.ack,
		"ack2":    h.ack,
		"drop":    h.drop,
		"rebuild": h.rebuild,
		"feature": func(t *rapid.T) { h.m.feat = !h.m.feat },
		"": func(t *rapid.T) {
			h.check(t)
			for _, g := range h.s.Groups() {
				if g.CommittedOffset < prevCommitted[g.Name] {
					t.Fatalf("group %q position moved back from %d to %d", g.Name, prevCommitted[g.Name], g.CommittedOffset)
				}
				prevCommitted[g.Name] = g.CommittedOffset
			}
		},
	})
}
