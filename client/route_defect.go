package client

// Defects are planted client-library bugs, each the shape of a real
// mistake, all off by default, so a simulation can show its checks catch
// them.
type Defects struct {
	// WrongRouteHash routes writes with FNV-1 (multiply, then XOR) where
	// the spec says FNV-1a (XOR, then multiply): the same constants, the
	// two steps swapped, so most keys land on another shard.
	WrongRouteHash bool
	// TimeoutAsFailure completes a write that missed its deadline as a
	// plain failure ("deadline exceeded"): not ErrUnknownOutcome, not
	// ErrTimeout. It is the mistake of reading no answer as no effect: the
	// request may have landed, and a caller that trusts the failure re-sends
	// a write that is already written.
	TimeoutAsFailure bool
	// ContractDefects are the client-contract checks' planted bugs
	// (contract_defects.go).
	ContractDefects
}

// shardOfFNV1 is WrongRouteHash's routing function.
func shardOfFNV1(entityKey []byte, shardCount uint32) uint32 {
	if shardCount == 0 {
		panic("client.shardOfFNV1: shardCount is 0")
	}
	h := uint64(fnvOffsetBasis64)
	for _, b := range entityKey {
		h *= fnvPrime64
		h ^= uint64(b)
	}
	return uint32(h % uint64(shardCount))
}
