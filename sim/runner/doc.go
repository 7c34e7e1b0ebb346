// Package runner is the library behind `felixsim run`: from Options and a
// seed it builds the simulated cluster and the workload, derives the fault
// plan from the seed (swarm over the chosen fault kinds; the plan also
// records the workload's shape, so a saved plan replays exactly), runs the
// fault phase, heals, checks liveness (every broker back, every group led,
// every stream shard accepting a commit within LivenessBudgetNs), quiesces
// (every call completed, every replica caught up, the outbox relay drained
// since the commit indexes last moved), takes the cluster snapshot and
// runs every check.
//
// The world holds the brokers, the workload's clients, the liveness probe
// and an outbox relay (package sim/relay), in that order. Drawn faults
// strike brokers only; a given plan may also kill, pause or partition the
// relay. It returns a Result: seed, trace hash,
// violations, operation counts and simulated seconds.
//
// The checks, all pure functions of package properties:
//   - on every scope of the snapshot (CheckClusterScope): agreement of the
//     replicas' logs, each state view the fold of its log, versions that
//     are offsets, acknowledged writes at their offsets, conditional
//     records at their expected offsets, and each replica read as a
//     reader against what the clients sent (NoPartialCommit);
//   - on the workload's history against the logs: acknowledged writes on
//     every replica, conditional writes (a refusal wrote nothing and told
//     the true tail), linearizable and monotonic state reads, write order
//     that respects real time, versions and values that match their
//     records, and readers that saw whole records;
//   - on the relay's sink against the committed logs, in parts like the
//     history: every committed event delivered at least once,
//     in offset order per scope, nothing uncommitted, each with the
//     offset of its record (OutboxDelivered is judged only when quiesce
//     saw the relay drain; otherwise it is unknown and the Quiesce
//     violation says why);
//   - during the run, as every broker's node.Observer (inrun.go): each
//     applied record whole, each durable round's hard state and stored
//     log, each boot's stored logs and positions, and each broker's store
//     read back from the bytes a crash would leave against its memory
//     (StoreMatchesMemory, inrun_store.go: every boot, every round that
//     installs a snapshot, compacts or appends a membership change, and
//     one other durable round in StoreCheckEveryRounds);
//   - the client contract's timed and cross-broker rules (check_contract*.go,
//     properties/contract_*.go): leases by the lease rule, a failed
//     write's answers, answers to group commands and the relay's trims
//     against the proposals, the relay's sink from the outbox's start,
//     the administered stream's landings against the generation each
//     write was accepted in (a generation watch on the trace and the
//     applied records), and live reads against their leader's queue (a
//     leader watch on the trace); each counts what it judged.
//
// The history checks judge the workload's history in parts of whole
// scopes, at most 8,192 operations each unless one scope holds more
// (history_judge.go): each part's operations, ledger and relay
// deliveries are read back from disk, judged with every replica's logs
// of its scopes, and dropped, and each check's findings over the parts
// merge into the one error it returns over the whole history
// (properties.MergeFindings). A run in which a record crossed scopes (a
// scope's log holding a record none of its writes carried, say) is judged
// whole instead, so the verdict never depends on the way it was judged.
//
// Membership changes are judged two ways (promotions.go,
// changeliveness.go): every promotion to voter against the proposing
// leader's committed prefix, read from the brokers' abstract trace
// (PromotedCaughtUp; a plan with membership or disk-replacement faults
// turns the trace on for it), and, while a change is in flight, a
// majority-connected shard group's writes acknowledged within
// Options.ChangeLivenessBudgetNs (LivenessDuringChange).
//
// Every Violation names an invariant of properties' registry (newViolation
// refuses any other name); Result.Worst gives the family that decides the
// verdict: crash, then safety, then liveness.
//
// On request a run also keeps its event trace (RecordTrace), watches
// leadership between events for the timeline (Observe) and captures the
// cluster's state at a simulated instant (UntilNs); none of them changes
// the trace. A violation carries the operations its message names as
// Evidence, and the summary names each invariant once.
//
// runner reads no wall clock: the CLI (or a benchmark) measures wall time
// around Run. A run is a function of its Options alone, so the same
// options give the same trace hash, in this process or another. It imports
// sim/world, sim/faultplan, sim/cluster, sim/workload, sim/relay, node, properties,
// statemachine, wire, modeltrace, tla (whose TraceValidator checks the
// run's abstract trace), sim/verdict (a run's verdict by the one rule)
// and vfs (the ledger of the brokers' steps waits in a vfs.Scratch file:
// ledger_spill.go); it must not import cmd. sim/detcheck/layers.go holds
// the table.
package runner
