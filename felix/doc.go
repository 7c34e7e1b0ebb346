// Package felix holds the Felix nouns every layer speaks: Scope (which
// stream shard), Record (one event and its ordered state operations, the
// unit a shard's log holds), StateOp, EventKind, OpKind, Entry (a record
// at its offset) and the size limits a record and a scope must respect,
// with their validation. The state machine applies these records, the wire
// format and the client carry them, the node and log store keep them, and
// the properties judge histories and replica logs written in them.
//
// It is the leaf of the import graph: it must not import any other
// felixsim package, nor anything with a clock, randomness or I/O, so that
// every package, properties included, may import it and stay pure.
// sim/detcheck (layers.go) enforces this.
//
// # One concept per file
//
//	scope.go   Scope: tenant, namespace, stream, shard; String, Less, Validate
//	record.go  Record, StateOp, EventKind, OpKind, Entry, Validate, size limits
package felix
