package properties

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// docRouteRow matches a row of the routing table in docs/atomic-commit.md:
// | `key` (optional note) | `0xhash` | shards | shard |
var docRouteRow = regexp.MustCompile("(?m)^\\|\\s*`([^`]*)`[^|]*\\|\\s*`0x([0-9a-f]{16})`\\s*\\|\\s*([0-9]+)\\s*\\|\\s*([0-9]+)\\s*\\|")

// TestRouteVectorsAreTheDocs: RouteVectors is exactly the document's
// table, row for row, and each row's stated hash gives its stated shard.
func TestRouteVectorsAreTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/atomic-commit.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := docRouteRow.FindAllStringSubmatch(string(doc), -1)
	if len(rows) != len(RouteVectors) {
		t.Fatalf("the document has %d routing rows, RouteVectors %d", len(rows), len(RouteVectors))
	}
	for i, m := range rows {
		key := m[1]
		if key == `""` {
			key = "" // the table writes the empty key as `""` (empty)
		}
		hash, _ := strconv.ParseUint(m[2], 16, 64)
		shards, _ := strconv.ParseUint(m[3], 10, 32)
		shard, _ := strconv.ParseUint(m[4], 10, 32)
		got := RouteVector{Key: key, Hash: hash, Shards: uint32(shards), Shard: uint32(shard)}
		if got != RouteVectors[i] {
			t.Errorf("doc row %d %q = %+v, RouteVectors has %+v", i, m[0], got, RouteVectors[i])
		}
		if hash%shards != shard {
			t.Errorf("doc row %q: hash %#x mod %d is %d, not the stated %d", m[0], hash, shards, hash%shards, shard)
		}
	}
}

// TestRouteShardVectors: the oracle gives every documented shard, and
// refuses a stream with no shards.
func TestRouteShardVectors(t *testing.T) {
	for _, v := range RouteVectors {
		got, err := RouteShard([]byte(v.Key), v.Shards)
		if err != nil || got != v.Shard {
			t.Errorf("RouteShard(%q, %d) = %d, %v; the document says %d", v.Key, v.Shards, got, err, v.Shard)
		}
	}
	if _, err := RouteShard([]byte("k"), 0); err == nil || !strings.Contains(err.Error(), "0 shards") {
		t.Fatalf("RouteShard with 0 shards = %v, want a refusal", err)
	}
}

// routeFixture is a history of two writes and replicas holding them,
// with the shard the second one landed on chosen by the caller.
func routeFixture(landed uint32) (*History, []ReplicaLog) {
	scope := func(shard uint32) felix.Scope {
		return felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "s", Shard: shard}
	}
	// "order-42" routes to shard 0 of 4, "match-7" to shard 2 of 4.
	h := &History{Ops: []HistoryOp{
		{ID: 1, Kind: HistoryPublish, Scope: scope(0), EntityKey: "order-42", Record: &felix.Record{Event: felix.EventPublish, Payload: []byte("e1")}, Outcome: OutcomeOK},
		{ID: 2, Kind: HistoryCommit, Scope: scope(2), EntityKey: "match-7", Record: &felix.Record{Event: felix.EventPublish, Payload: []byte("e2")}, Outcome: OutcomeUnknown},
		{ID: 3, Kind: HistoryStateGet, Scope: scope(1), Key: "k", Outcome: OutcomeOK},
	}}
	v0 := ReplicaView{Name: "b1", Scope: scope(0), NextOffset: 1, Log: []ViewEntry{{Offset: 0, HasEvent: true, Event: "e1"}}}
	vl := ReplicaView{Name: "b1", Scope: scope(landed), NextOffset: 1, Log: []ViewEntry{{Offset: 0, HasEvent: true, Event: "e2"}}}
	if landed == 0 {
		v0.NextOffset = 2
		v0.Log = append(v0.Log, ViewEntry{Offset: 1, HasEvent: true, Event: "e2"})
		return h, []ReplicaLog{{Node: 1, Scopes: []ReplicaView{v0}}}
	}
	return h, []ReplicaLog{{Node: 1, Scopes: []ReplicaView{v0, vl}}}
}

func fourShards(ns, stream string) (uint32, bool) { return 4, ns == "orders" && stream == "s" }

// TestHistoryWritesOnOwningShard: records on their key's shard pass; a
// record on another shard fails naming the key, where it landed and where
// it belongs, even though the history's own scope agrees with where it
// landed (the check trusts only the oracle); an unknown stream is refused.
func TestHistoryWritesOnOwningShard(t *testing.T) {
	h, rs := routeFixture(2)
	if err := HistoryWritesOnOwningShard(h, rs, fourShards); err != nil {
		t.Fatalf("correctly routed: %v", err)
	}
	for _, landed := range []uint32{0, 3} {
		h, rs := routeFixture(landed)
		h.Ops[1].Scope.Shard = landed // a client that routes wrongly records its own scope
		err := HistoryWritesOnOwningShard(h, rs, fourShards)
		want := "RoutedToOwningShard: op 2 (commit, entity key \"match-7\") landed on shard " + strconv.Itoa(int(landed))
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "routes to shard 2 of 4") {
			t.Fatalf("landed on %d: %v, want %q…", landed, err, want)
		}
	}
	h, rs = routeFixture(2)
	if err := HistoryWritesOnOwningShard(h, rs, func(string, string) (uint32, bool) { return 0, false }); err == nil || !strings.Contains(err.Error(), "does not have") {
		t.Fatalf("unknown stream: %v", err)
	}
}
