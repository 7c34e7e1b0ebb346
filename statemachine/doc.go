// Package statemachine is the pure, deterministic Felix stream-shard state
// machine: the record vocabulary, apply with conditional writes, keyed state
// with versions equal to offsets, the replay ring, consumer groups, feature
// gates and retention.
//
// It does no I/O, reads no clock (time is passed in as nanoseconds) and
// starts no goroutines. It must not import any other felixsim package.
package statemachine
