package node

// ContractDefects are planted bugs in corners of the client contract, each
// the shape of a real mistake, all off by default; the contract checks
// (properties/contract_*.go) must catch every one. Each is read at one
// named hook below, called from one line where the broker does the thing
// the bug gets wrong.
type ContractDefects struct {
	// LeaseUnitSlip hands a fetch's lease to the state machine in the
	// wrong unit (the wire's nanoseconds read as microseconds: a
	// thousandth of the lease) while the answer reports the lease the
	// client asked for: a record is handed out again long before the
	// expiry its consumer was told.
	LeaseUnitSlip bool
	// FailedOnCopyRefusal is a client-library bug carried in the same set
	// (client.ContractDefects.FailedOnCopyRefusal): the simulated clients
	// report a write whose last copy a broker refused as failed, not
	// unknown. The node itself ignores it.
	FailedOnCopyRefusal bool
}

// stateLeaseNs is the lease a fetch command's records are leased for in
// the state machine: the command's (under LeaseUnitSlip, a thousandth of
// it, at least 1 ns).
func (n *Node) stateLeaseNs(c *command) int64 {
	if n.cfg.Defects.LeaseUnitSlip {
		return max(c.leaseNs/1000, 1)
	}
	return c.leaseNs
}
