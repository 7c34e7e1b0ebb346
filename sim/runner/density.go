package runner

import (
	"github.com/felixsim/felixsim/node"
)

// Density is the raft work a run asked of etcd raft, per simulated second
// of the whole run (fault phase, heal, liveness, quiesce, drain): what
// `felixsim run --json` prints as "density", and the density at which
// bench/bareraft drives etcd raft alone to measure the floor under a run
// (make bench-floor, docs/performance.md).
//
// Proposals are counted at the broker that made them, when raft accepted
// them: client writes and consumer-group commands, outbox trims,
// retention, fleet and stream commands, the planted defects' extra
// proposals, and membership changes (node.Density says exactly which).
// Ticks are Node.Tick calls of running brokers, summed over brokers and
// incarnations: a broker that is down or paused does not tick, so the
// rate per broker can fall under the configured 100 per second.
type Density struct {
	// RaftGroups is the most raft groups a broker hosted (shard groups
	// and the metadata group); Brokers the broker slots (each replicates
	// every group).
	RaftGroups int `json:"raft_groups"`
	Brokers    int `json:"brokers"`
	// TicksPerSimSecond is ticks per simulated second per broker; each
	// tick ticks every raft group the broker hosts.
	TicksPerSimSecond float64 `json:"ticks_per_sim_second"`
	// ProposalsPerSimSecond is accepted proposals per simulated second,
	// over every group; their entry data is ProposalBytesMean bytes on
	// average and ProposalBytesMax at most.
	ProposalsPerSimSecond float64 `json:"proposals_per_sim_second"`
	ProposalBytesMean     float64 `json:"proposal_bytes_mean"`
	ProposalBytesMax      uint64  `json:"proposal_bytes_max"`
	// SimSeconds is the run's simulated time; Ticks, Proposals and
	// ConfChanges (the membership changes among the proposals) the raw
	// counts the rates come from.
	SimSeconds  float64 `json:"sim_seconds"`
	Ticks       uint64  `json:"ticks"`
	Proposals   uint64  `json:"proposals"`
	ConfChanges uint64  `json:"conf_changes"`
	// RaftWork is what raft did beyond the proposals over the run
	// (counts): messages sent, appends and their entries, snapshots, vote
	// requests, heartbeats, elections (node.RaftWork), the work faults
	// add above the floor, which bench/bareraft counts alike.
	RaftWork
}

// RaftWork is node.RaftWork in a run's JSON (flat in "density").
type RaftWork struct {
	Sent            uint64 `json:"raft_messages"`
	Appends         uint64 `json:"raft_appends"`
	AppendedEntries uint64 `json:"raft_appended_entries"`
	Snapshots       uint64 `json:"raft_snapshots"`
	Votes           uint64 `json:"raft_vote_requests"`
	Heartbeats      uint64 `json:"raft_heartbeats"`
	Elections       uint64 `json:"raft_elections"`
}

// DensityOf turns the brokers' counts over a run of simNs into rates.
func DensityOf(d *node.Density, brokers int, simNs int64) Density {
	out := Density{RaftGroups: d.RaftGroupsMax, Brokers: brokers, ProposalBytesMax: d.ProposalBytesMax,
		SimSeconds: float64(simNs) / 1e9, Ticks: d.Ticks, Proposals: d.Proposals, ConfChanges: d.ConfChanges, RaftWork: RaftWork(d.Raft)}
	if d.Proposals > 0 {
		out.ProposalBytesMean = float64(d.ProposalBytes) / float64(d.Proposals)
	}
	if simNs > 0 && brokers > 0 {
		out.TicksPerSimSecond = float64(d.Ticks) / float64(brokers) / out.SimSeconds
		out.ProposalsPerSimSecond = float64(d.Proposals) / out.SimSeconds
	}
	return out
}
