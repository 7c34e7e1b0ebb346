package client

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// routingRow matches a row of the routing table in docs/atomic-commit.md:
// | `key` (optional note) | `0xhash` | shards | shard |
var routingRow = regexp.MustCompile("(?m)^\\|\\s*`([^`]*)`[^|]*\\|\\s*`0x([0-9a-f]{16})`\\s*\\|\\s*([0-9]+)\\s*\\|\\s*([0-9]+)\\s*\\|")

// TestDocRoutingVectors checks every routing vector the document publishes
// against ShardOf, so other clients can trust the table.
func TestDocRoutingVectors(t *testing.T) {
	doc, err := os.ReadFile("../docs/atomic-commit.md")
	require.NoError(t, err)
	rows := routingRow.FindAllStringSubmatch(string(doc), -1)
	require.GreaterOrEqual(t, len(rows), 8, "the routing table has gone missing")
	for _, m := range rows {
		key := []byte(m[1])
		if m[1] == `""` {
			key = nil // the table writes the empty key as `""` (empty)
		}
		shards, err := strconv.ParseUint(m[3], 10, 32)
		require.NoError(t, err)
		want, err := strconv.ParseUint(m[4], 10, 32)
		require.NoError(t, err)
		require.Equal(t, uint32(want), ShardOf(key, uint32(shards)), "doc row %q", m[0])
		hash, err := strconv.ParseUint(m[2], 16, 64)
		require.NoError(t, err)
		require.Equal(t, want, hash%shards, "doc row %q: the stated hash does not give the stated shard", m[0])
	}
}
