// Package logstore is a broker node's durable store: the raft log, hard
// state, snapshot and applied index of every raft group the node hosts, the
// four applied tables of Felix (log, state, position, outbox) and the
// consumer-group table (each consumer group's position and leases, per
// scope and group name), all written by one crash-atomic Commit per batch.
// Every table holds only what its name says: no scope or key is reserved
// for bookkeeping.
//
// # Engine
//
// One append-only write-ahead file, "logstore.wal", holds checksummed
// transactions. A transaction is the batch's writes appended in order (the
// raft frame with each group's writes and applied index, then one frame per
// table: log, state, position, outbox, consumer group), then a commit
// marker carrying a checksum over the whole
// transaction, written twice, then one fsync. Open replays every transaction
// up to the last complete commit marker into in-memory indexes; an
// incomplete or torn final transaction never happened and is truncated away;
// a damaged frame followed by a valid commit marker is corruption, reported
// as an error naming the file and the byte offset. The marker's second copy
// makes a flipped bit in the last transaction's marker corruption too,
// instead of a torn write that would silently drop an acknowledged
// transaction. No file content makes Open panic.
//
// The file starts with a header naming its format version (2). Files of
// version 1, which kept applied indexes and consumer groups as rows of
// reserved scopes in the position and state tables, are not read: Open
// reports them as corrupt. Nothing of that layout was ever deployed.
//
// Rewrite replaces the file by one holding only the current content (new
// file, fsync, rename over, directory fsync), so long runs do not replay
// unbounded history; Stats says how large the file has grown.
//
// Commit is the only write path for the tables: the in-memory indexes change
// only after the fsync succeeded. If a write or fsync fails the file is in an
// unknown state, and the store refuses every further Commit; reopen it.
//
// Memory always equals what replaying the file would rebuild. Commit
// installs its indexes straight from the batch, not by decoding the bytes
// it just wrote: byte slices are copied into one buffer and normalised as
// the decoder yields them (empty as nil); raft entries and hard states are
// shared with the caller, as raft's MemoryStorage shares them. A rapid
// property (TestOwnBatchEqualsDecode) holds install-from-batch equal to
// decode-and-install in every build; built with -tags invariants, every
// Commit also decodes what it wrote and panics with both values if they
// differ. Behaviour is otherwise identical with and without the tag.
//
// # Crash hook
//
// The commit path evaluates the failpoint named by FailpointPanicAfterTableWrite
// with github.com/pingcap/failpoint's run-time Eval (no source rewriting).
// Armed with the term "return(i)" (failpoint.Enable, or GO_FAILPOINTS in a
// child process's environment) the commit panics after i of the five table
// writes, i in 0..5, after their bytes were appended to the file and before
// the commit marker. Disarmed, each check costs one read lock and one map
// lookup, 10-55 ns on the shared 2-core development machine
// (BenchmarkFailpointDisarmed), six checks per Commit; nothing is compiled
// differently for tests. Options.Defects plants known bugs (a split
// transaction, a hook before the transaction, no fsync) so that tests and
// the simulator can show their checkers catch them.
//
// A Follower (follow.go) reads a store file's durable bytes, as a crash
// would leave them (DurableSource: vfs.Mem's DurableReadAt), and replays
// each whole transaction among them once, by the replay Open uses, into a
// Store of its own: a checker compares what the bytes say with what the
// writer holds in memory, without trusting the writer's own install.
//
// The store reads its whole file into memory on Open and keeps every row in
// memory: its size is bounded by what the node commits, and Rewrite drops
// what is superseded.
//
// # Determinism
//
// The store reads no clock, draws no randomness, starts no goroutines and
// never lets map order reach behaviour or output (scans sort their keys). It
// touches files only through vfs.FS.
//
// Log rows hold records in the canonical wire record codec.
//
// logstore imports felix (the record vocabulary), wire (the record codec)
// and vfs; it must not import statemachine, node, anything under sim/,
// client, properties or tla.
package logstore
