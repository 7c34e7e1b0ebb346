package properties

// RouteVector is one documented routing test vector: the entity key, its
// FNV-1a 64 hash, a shard count and the shard the key routes to.
type RouteVector struct {
	Key    string
	Hash   uint64
	Shards uint32
	Shard  uint32
}

// RouteVectors are the routing vectors docs/atomic-commit.md §2
// publishes, kept here with the oracle (RouteShard) that the simulation
// judges routing by; a test holds the document's table and this list
// equal, and RouteShard to both.
var RouteVectors = []RouteVector{
	{Key: "", Hash: 0xcbf29ce484222325, Shards: 4, Shard: 1},
	{Key: "", Hash: 0xcbf29ce484222325, Shards: 7, Shard: 2},
	{Key: "a", Hash: 0xaf63dc4c8601ec8c, Shards: 4, Shard: 0},
	{Key: "a", Hash: 0xaf63dc4c8601ec8c, Shards: 16, Shard: 12},
	{Key: "order-42", Hash: 0x7d1deb86a05662d4, Shards: 4, Shard: 0},
	{Key: "order-42", Hash: 0x7d1deb86a05662d4, Shards: 16, Shard: 4},
	{Key: "match-7", Hash: 0xd35af68257804c62, Shards: 4, Shard: 2},
	{Key: "match-7", Hash: 0xd35af68257804c62, Shards: 7, Shard: 3},
	{Key: "customer-7", Hash: 0x660308ab83c6fdf1, Shards: 16, Shard: 1},
	{Key: "customer-7", Hash: 0x660308ab83c6fdf1, Shards: 1, Shard: 0},
}
