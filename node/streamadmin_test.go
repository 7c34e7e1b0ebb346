package node

import (
	"errors"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// TestStreamAdminTransitions walks one stream through delete, create and
// the refusals in between, and checks the metadata snapshot keeps the
// incarnation.
func TestStreamAdminTransitions(t *testing.T) {
	m := newMetadata(&Bootstrap{Streams: []StreamSpec{{Namespace: "n", Stream: "s", Shards: 1, Kind: statemachine.StreamQuorum,
		RetainedLenMax: 8, ReplayWindowLenMax: 8, GroupsMax: 1, LeasesPerGroupMax: 1}}, SoftwareVersion: 2}, []uint64{1})
	admin := func(deleted bool, stream string, generation uint32) error {
		return m.apply(&command{kind: cmdStreamAdmin, scope: felix.Scope{Namespace: "n", Stream: stream}, deleted: deleted, generation: generation}, []uint64{1}, false)
	}
	steps := []struct {
		deleted    bool
		stream     string
		generation uint32
		refusal    string // "" when accepted
		want       StreamIncarnation
	}{
		{false, "s", 0, "it exists (generation 1)", StreamIncarnation{Generation: 1}},
		{true, "s", 2, "generation 2: the stream is at generation 1", StreamIncarnation{Generation: 1}},
		{true, "s", 1, "", StreamIncarnation{Generation: 1, Deleted: true}},
		{true, "s", 0, "already deleted (generation 1, deleted)", StreamIncarnation{Generation: 1, Deleted: true}},
		{false, "s", 1, "", StreamIncarnation{Generation: 2}},
		{true, "nope", 0, "no such stream in the topology", StreamIncarnation{Generation: 2}},
		{true, "s", 0, "", StreamIncarnation{Generation: 2, Deleted: true}},
		{false, "s", 1, "generation 1: the stream is at generation 2, deleted", StreamIncarnation{Generation: 2, Deleted: true}},
		{false, "s", 0, "", StreamIncarnation{Generation: 3}},
	}
	for i, st := range steps {
		err := admin(st.deleted, st.stream, st.generation)
		switch {
		case st.refusal == "" && err != nil:
			t.Fatalf("step %d: refused: %v", i, err)
		case st.refusal != "" && (!errors.Is(err, ErrStreamAdminRefused) || !strings.Contains(err.Error(), st.refusal)):
			t.Fatalf("step %d: err %v, want a refusal containing %q", i, err, st.refusal)
		}
		if got, _ := m.IncarnationOf("n", "s"); got != st.want {
			t.Fatalf("step %d: incarnation %s, want %s", i, got, st.want)
		}
	}
	d, err := decodeMetadata(encodeMetadata(m))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := d.IncarnationOf("n", "s"); got != (StreamIncarnation{Generation: 3}) {
		t.Fatalf("decoded metadata at %s, want generation 3", got)
	}
}

// TestSnapshotIncarnationRefusesBrokenData: the incarnation bytes of
// snapshot data round-trip, a pre-incarnation compaction point reads as
// generation 1, and hand-broken bytes are refused.
func TestSnapshotIncarnationRefusesBrokenData(t *testing.T) {
	inc := StreamIncarnation{Generation: 7, Deleted: true}
	data := appendIncarnation([]byte{compactionMagic, 0}, inc)
	if got, err := snapshotIncarnation(data); err != nil || got != inc {
		t.Fatalf("round trip: %s, %v", got, err)
	}
	if got, err := snapshotIncarnation([]byte{compactionMagic, 0}); err != nil || got != bootIncarnation {
		t.Fatalf("a two-byte compaction point reads as %s, %v; want generation 1", got, err)
	}
	for name, bad := range map[string][]byte{
		"truncated":      data[:len(data)-1],
		"deleted byte 2": append(append([]byte(nil), data[:len(data)-1]...), 2),
		"generation 0":   appendIncarnation([]byte{compactionMagic, 0}, StreamIncarnation{}),
	} {
		if _, err := snapshotIncarnation(bad); err == nil {
			t.Fatalf("%s: decoded", name)
		}
	}
}
