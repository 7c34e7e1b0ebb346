package client

// ContractDefects are planted client-library bugs in corners of the client
// contract, all off by default; the contract checks must catch each.
type ContractDefects struct {
	// FailedOnCopyRefusal completes a write whose last request a broker
	// refused before proposing it (NotLeader once the redirects ran out,
	// Unavailable, EphemeralStream, ...: wire.ErrorCode.WriteNotApplied)
	// as failed, not unknown: it reads "this copy was not written" as "the
	// write had no effect", although an earlier copy (sent before a
	// redirect, or duplicated by the network) may have landed.
	FailedOnCopyRefusal bool
}

// copyRefusal is the hook on a broker's error answer to a call: under
// FailedOnCopyRefusal, a write whose copy was refused is no longer unknown.
func (c *Client) copyRefusal(ce *CallError) *CallError {
	if c.cfg.Defects.FailedOnCopyRefusal && ce.CopyRefused {
		ce.Unknown = false
	}
	return ce
}
