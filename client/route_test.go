package client

import (
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestShardOfVectors pins the routing hash to the vectors that
// docs/atomic-commit.md publishes for other clients.
func TestShardOfVectors(t *testing.T) {
	for _, v := range []struct {
		key    string
		shards uint32
		want   uint32
	}{
		{"", 4, 1}, {"", 7, 2}, {"a", 4, 0}, {"a", 16, 12},
		{"order-42", 4, 0}, {"order-42", 16, 4}, {"match-7", 4, 2}, {"match-7", 7, 3},
		{"customer-7", 16, 1}, {"customer-7", 1, 0},
	} {
		require.Equal(t, v.want, ShardOf([]byte(v.key), v.shards), "ShardOf(%q, %d)", v.key, v.shards)
	}
}

// TestShardOfIsFNV1a64 checks the hand-written hash against the standard
// library's FNV-1a for arbitrary keys and shard counts.
func TestShardOfIsFNV1a64(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SliceOf(rapid.Byte()).Draw(t, "key")
		n := rapid.Uint32Min(1).Draw(t, "shards")
		h := fnv.New64a()
		h.Write(key)
		if got, want := ShardOf(key, n), uint32(h.Sum64()%uint64(n)); got != want {
			t.Fatalf("ShardOf(%x, %d) = %d, FNV-1a 64 gives %d", key, n, got, want)
		}
	})
}

func TestShardOfZeroShardsPanics(t *testing.T) {
	require.PanicsWithValue(t, "client.ShardOf: shardCount is 0", func() { ShardOf([]byte("k"), 0) })
}

// TestCommitRoutesByEntityKey: the request goes to the shard the entity key
// hashes to, and state_get for the same entity reads that same shard.
func TestCommitRoutesByEntityKey(t *testing.T) {
	for _, key := range []string{"order-42", "match-7", "customer-7", "a", ""} {
		c, tr := newTestClient(t, 0)
		_, err := c.Commit(0, "acme", "orders", []byte(key), []CommitOp{Enqueue("order-events", []byte("e")), Put("order-events", "k", []byte("v"))})
		require.NoError(t, err)
		_, err = c.StateGet(0, "acme", "orders", "order-events", []byte(key), "k")
		require.NoError(t, err)
		require.Len(t, tr.sends, 2)
		want := scopeOf(ShardOf([]byte(key), 4))
		require.Equal(t, want, tr.sends[0].req.Scope, "commit for %q", key)
		require.Equal(t, want, tr.sends[1].req.Scope, "state_get for %q", key)
	}
}
