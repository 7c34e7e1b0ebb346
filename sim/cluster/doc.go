// Package cluster wires N Felix brokers (node.Node) into a world.World as
// processes, so one seed drives real broker code through a deterministic,
// faulty world. It is the API the workload, the properties checks and
// `felixsim run` build on.
//
// # Layout of the world
//
// Brokers sit at sim ids 0..Brokers-1 with raft ids 1..Brokers (RaftID,
// SimID); Config.Extra processes (workload clients, probes) follow at sim
// ids Brokers, Brokers+1, … Every broker replicates every raft group:
// group 1 is the metadata group, then one group per stream shard of the
// bootstrap topology (Config.Streams, default DefaultStreams(4):
// orders/order-events with 4 shards). Any tenant may write to a stream;
// each tenant's records live in their own scope inside the shard's group.
// The atomic_commit fleet feature is finalized at bootstrap unless
// Config.NotFinalized.
//
// # Messages
//
// Brokers exchange *PeerMsg (a node.PeerBatch passed as a pointer, with a
// field-getter Digest and a deep Clone for duplicated deliveries). A client
// sends *RequestMsg{*wire.Request} to a broker's sim id and gets
// *AnswerMsg{*wire.Answer} back at its own sim id; the answer echoes the
// request id. A broker that does not lead the shard answers
// wire.CodeNotLeader with a leader hint (a raft id; SimID converts it).
// Requests and answers digest through their canonical wire encoding.
//
// # Driving and inspecting
//
// New boots everything at time 0; drive c.World (RunFor, RunUntil, faults,
// Heal). Each broker ticks every TickNs on its own clock. AllLed is a
// RunUntil goal: every group has a leader. Leader(group) finds the
// running leader with the highest term; TransferLeadership and Failover
// inject the operator's leadership transfer and a leader kill. Snapshot is
// a consistent cut of every running broker's replica state (every group,
// every scope's statemachine.Snapshot, applied/commit indexes), for the
// properties checks. A broker whose store refuses a write fail-stops and is
// restarted RestartAfterFailNs later from its store alone; Failures lists
// those events.
//
// # Clients
//
// ClientProc hosts a client.Client (the real Felix client API) as a
// fault-exempt process: ClientConfig gives it this cluster's brokers and
// topology, its Tick runs on its own clock, answers are delivered with
// the broker's raft id. Issue calls with ClientProc.NowNs and run the
// world until the returned Pending is done. Probe is a lower-level
// scripted client sending raw wire requests, for scenario tests.
//
// # Replacing a broker (replace.go)
//
// A broker slot (process and disk) runs one raft identity at a time
// (IdentityOf; SimID maps every identity back to its slot, RaftID is the
// slot's first identity and its address for clients). A slot whose disk
// is replaced, or whose store refuses to open as corrupt (the operator
// then replaces the disk), boots under the next identity as a joining
// node; the cluster's operator moves every group to the new membership
// (old identity removed, new one added as a learner, caught up by
// snapshot, promoted) and reports when it is done (MembershipSettled,
// Replacements). The RejoinOldIdentity defect skips all that.
//
// # Tests
//
// The package's tests are the broker's end-to-end evidence: the seeds'
// examples (raw requests and through the client API), failover then a
// second promotion, leadership transfer, whole-cluster restart, consumer
// groups surviving restart, and a seeded soak under every fault kind but
// disk corruption (writes acknowledged then read back, consumer groups,
// replica agreement, liveness after heal, the same trace hash twice and in
// a child process). Widen the soak with
//
//	go test ./sim/cluster -run SoakDeterministic -cluster.soakseeds 200
//
// (-cluster.soakfirst N to start elsewhere, -cluster.debug to dump raft
// progress and logs on failure). TestSoakCatchesDefects shows each planted
// node.Defects switch caught. BenchmarkDefaultRun reports simulated
// seconds per wall and per CPU second.
//
// cluster imports sim/world, sim/simapi, node, client, wire, statemachine
// and modeltrace (the
// brokers' trace sink, Config.Trace); it must not
// import cmd or properties (they build on it).
package cluster
