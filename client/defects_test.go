package client

import (
	"fmt"
	"testing"
)

// TestWrongRouteHashMisroutes: the planted routing bug sends most of the
// workload's keys to another shard than ShardOf, so a routing check has
// something to catch, and refuses a zero shard count like ShardOf.
func TestWrongRouteHashMisroutes(t *testing.T) {
	moved := 0
	for i := 1; i <= 6; i++ {
		key := []byte(fmt.Sprintf("order-%d", i))
		if shardOfFNV1(key, 4) != ShardOf(key, 4) {
			moved++
		}
	}
	if moved < 3 {
		t.Fatalf("FNV-1 moved %d of 6 keys off their FNV-1a shard; the defect would hide", moved)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("shardOfFNV1 with 0 shards did not panic")
		}
	}()
	shardOfFNV1([]byte("k"), 0)
}
