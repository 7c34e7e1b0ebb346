// Package properties holds felixsim's invariants, written once as pure
// functions over plain data and checked everywhere: on the TLA+ mirror's
// model states (package tla), on cluster snapshots and on client histories
// (the simulator, under sim/). Each check returns nil when the property holds and
// otherwise an error that names the property and the values that break it.
//
// A replica's shard log has one form here (view.go): ReplicaView, one
// broker's replica of one scope (its retained log of ViewEntry records,
// each an event and its ordered state operations at an offset, and its
// state view). Two families of checks read it. The replica checks
// (replica_*.go, reader.go, cluster_scopes.go) read one view, or one
// scope's views across brokers (ClusterScope), or what one reader saw
// (ReaderView). The history checks (history_*.go) read a recorded client
// history against each broker's views (ReplicaLog). A history speaks
// package felix's nouns (felix.Scope, felix.Record, felix.Entry) for what
// clients sent and read; the JSON names of its encoding live only in the
// codec (history_codec.go), and ViewEntryOf is the one conversion from a
// felix.Record to the log's form.
//
// The invariants are one registry (invariants.go): each has a typed name
// (InvariantName; every violation, here, in the runner and in the TLA+
// mirror, carries one), a one-line statement, a family (safety, liveness
// or crash: the CLI's exit code follows it) and the checks that report it.
// `felixsim run --list-invariants` prints it.
//
// A landed record is matched to the write that sent it by request id, not
// by payload (a retry carries its original's payload): a Ledger
// (ledger.go) is what the brokers' abstract trace shows — each client
// request a broker proposed, under its proposal's digest, and each record
// an applied entry wrote — and the history names each sent write's
// requests with the broker each went to and what it answered
// (HistoryRequest, HistoryAnswer). AnswersHonest, FailedWriteLeftNoTrace,
// LandsAtMostOncePerDelivery and LandingMatchesRequest read the two
// together; the promises an answer makes are stated here once more
// (HistoryAnswer.NotProposed, WroteNothing), apart from the broker that
// makes them.
//
// A history check can judge a history in parts (HistoryPart: a few
// scopes' operations at a time) and its errors over the parts merge into
// the one it returns over the whole (MergeFindings): each finding carries
// an order key, the operation or replica it judges, so the merged text
// lists the same findings in the same order.
//
// The per-scope linearizability check (linearizable*.go) states a shard's
// semantics a second time, as a sequential specification over a log of
// records (linearizable_model.go), and searches each scope's history with
// porcupine: writes, refused conditional writes, writes of unknown outcome
// (which may take effect at any point after their invocation, or never),
// state_get, subscribe and group-fetch reads, group acks (an acknowledged
// offset is never handed out again), and the reference log read after
// every answer. Its search cuts are proved verdict-preserving
// against porcupine's plain search on random histories
// (linearizable_test.go); a search out of budget is unknown, never a pass.
// The specific read and write checks (history_*.go) stay: their messages
// say more.
//
// The client contract as a whole is one sequential model
// (contract_model*.go: ContractScope), written from the seeds and
// docs/atomic-commit.md apart from the broker's state machine, which a
// test in sim/runner holds to it on random calls. The linearizability
// model takes the rules it shares with it (the conditional write, the
// lease rule's ack); the timed and cross-broker parts of the contract
// are judged by the contract checks (contract_*.go), each over what a
// history shows (and, where the client cannot see it, the brokers'
// abstract trace): leases against the lease rule (GroupLeaseHonored),
// writes against their stream's generation (WriteInItsGeneration), live
// reads against their queue (EphemeralLiveComplete), a client's failed
// outcomes against its answers (FailedOnlyWhenCertain), answers to
// group commands and trims against the proposals (AnswersHonest), and
// the relay's sink against the outbox's start (OutboxFromStart).
//
// properties must not import any felixsim package but felix (the leaf of
// the import graph), nor anything with a wall clock, randomness or I/O: it
// is pure, so a test, the model explorer and the simulator can all call it. (porcupine is imported for
// its search only; its wall-clock timeout is never used: budgets count
// model steps, so a verdict is the same on every machine.)
package properties
