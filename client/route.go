package client

// FNV-1a 64-bit parameters; docs/atomic-commit.md documents the routing hash
// so that other clients can match it.
const (
	fnvOffsetBasis64 = 14695981039346656037
	fnvPrime64       = 1099511628211
)

// ShardOf routes an entity key (or a publish's routing key) to one of a
// stream's shards: FNV-1a 64 over the key's bytes, modulo shardCount. It
// panics if shardCount is 0, a programmer error the callers rule out.
func ShardOf(entityKey []byte, shardCount uint32) uint32 {
	if shardCount == 0 {
		panic("client.ShardOf: shardCount is 0")
	}
	h := uint64(fnvOffsetBasis64)
	for _, b := range entityKey {
		h ^= uint64(b)
		h *= fnvPrime64
	}
	return uint32(h % uint64(shardCount))
}
