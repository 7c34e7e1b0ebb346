package properties

import (
	"fmt"
	"hash/fnv"
)

// RouteShard is the routing function as docs/atomic-commit.md §2 states
// it, computed here apart from the client's code so that a wrong client
// hash cannot hide behind itself: FNV-1a 64 (the standard library's
// hash/fnv) over the key's bytes, the unsigned hash modulo shardCount. A
// shard count of 0 is refused with an error.
func RouteShard(entityKey []byte, shardCount uint32) (uint32, error) {
	if shardCount == 0 {
		return 0, fmt.Errorf("route of key %q refused: the stream has 0 shards", entityKey)
	}
	h := fnv.New64a()
	h.Write(entityKey)
	return uint32(h.Sum64() % uint64(shardCount)), nil
}

// ShardCountFunc returns a stream's shard count, and false for a stream
// the topology does not have.
type ShardCountFunc func(namespace, stream string) (uint32, bool)

// routeKey names a record by its tenant, stream and event, so the check
// can find which shard holds it.
type routeKey struct {
	tenant, namespace, stream, event string
}

// HistoryWritesOnOwningShard checks that every write in the history whose
// record some replica holds sits on the shard its entity (or routing) key
// owns, by RouteShard; the history's own scope is not trusted for it. A
// write names its record by its payload (unique per operation; a retry
// repeats its original's).
func HistoryWritesOnOwningShard(h *History, replicas []ReplicaLog, shards ShardCountFunc) error {
	landed := map[routeKey][]uint32{}
	for i := range replicas {
		for j := range replicas[i].Scopes {
			v := &replicas[i].Scopes[j]
			for k := range v.Log {
				key := routeKey{v.Scope.Tenant, v.Scope.Namespace, v.Scope.Stream, v.Log[k].Event}
				if !containsShard(landed[key], v.Scope.Shard) {
					landed[key] = append(landed[key], v.Scope.Shard)
				}
			}
		}
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.Record == nil {
			continue
		}
		n, ok := shards(op.Scope.Namespace, op.Scope.Stream)
		if !ok {
			return firstAt(op.ID, InvariantRoutedToOwningShard.Errorf("op %d (%s) names stream %s/%s, which the topology does not have", op.ID, op.Kind, op.Scope.Namespace, op.Scope.Stream))
		}
		want, err := RouteShard([]byte(op.EntityKey), n)
		if err != nil {
			return firstAt(op.ID, InvariantRoutedToOwningShard.Errorf("op %d (%s): %v", op.ID, op.Kind, err))
		}
		for _, got := range landed[routeKey{op.Scope.Tenant, op.Scope.Namespace, op.Scope.Stream, string(op.Record.Payload)}] {
			if got != want {
				return firstAt(op.ID, InvariantRoutedToOwningShard.Errorf("op %d (%s, entity key %q) landed on shard %d of %s/%s/%s, but the key routes to shard %d of %d",
					op.ID, op.Kind, op.EntityKey, got, op.Scope.Tenant, op.Scope.Namespace, op.Scope.Stream, want, n))
			}
		}
	}
	return nil
}

func containsShard(s []uint32, x uint32) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
