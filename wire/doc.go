// Package wire is the Felix binary encoding: the record format that shard
// logs, raft entries and the store hold, and the client↔broker request and
// answer messages.
//
// Every encoding is a frame: magic, version, frame kind, body length, body,
// and a CRC-32C over all of it, little-endian throughout. Encodings are
// canonical (one byte string per value) and decoding is strict: truncated,
// trailing, corrupted or out-of-limit bytes give an error that wraps
// ErrMalformed, never a panic and never a wrong value. docs/atomic-commit.md
// describes the format byte by byte.
//
// wire imports felix for the record vocabulary and must not import any
// other felixsim package. It does no I/O and reads no clock.
package wire
