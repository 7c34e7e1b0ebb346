package tla

import "fmt"

// assertWellFormed panics, printing the values, if s breaks an invariant
// written on State's fields: such a state is a bug in the mirror's
// actions, not a finding about the model.
func (m *model) assertWellFormed(s *State) {
	if int(s.nextCid) > m.cfg.MaxCommits+1 || s.nextCid == 0 {
		panic(fmt.Sprintf("tla: malformed state: nextCid %d (max %d)", s.nextCid, m.cfg.MaxCommits+1))
	}
	for b := 0; b < BrokersMax; b++ {
		br := &s.b[b]
		mid := uint8(0)
		if br.mid {
			mid = 1
		}
		if int(br.term) > m.cfg.MaxTerm || int(br.votedFor) > m.cfg.Brokers || br.role > roleLeader ||
			(br.role != roleCandidate && br.votes != 0) || (br.role != roleLeader && br.acked != [BrokersMax]uint8{}) {
			panic(fmt.Sprintf("tla: malformed broker %s: term %d (max %d), votedFor %d, role %d, votes %b, acked %v",
				brokerNames[b], br.term, m.cfg.MaxTerm, br.votedFor, br.role, br.votes, br.acked))
		}
		if br.durable > br.logLen || br.applied > br.commit || br.commit > br.logLen || br.shardLen > br.applied+mid {
			panic(fmt.Sprintf("tla: malformed broker %s: durable %d, applied %d, commit %d, logLen %d, shardLen %d, mid %t",
				brokerNames[b], br.durable, br.applied, br.commit, br.logLen, br.shardLen, br.mid))
		}
		if br.voters&br.learners != 0 {
			panic(fmt.Sprintf("tla: malformed broker %s: voters %b and learners %b overlap", brokerNames[b], br.voters, br.learners))
		}
		if int(s.nconf) > m.cfg.MaxReconfigs || (b >= m.cfg.Brokers && (br.voters|br.learners) != 0) {
			panic(fmt.Sprintf("tla: malformed state: nconf %d (max %d), broker %s voters %b learners %b", s.nconf, m.cfg.MaxReconfigs, brokerNames[b], br.voters, br.learners))
		}
		for i := int(br.logLen); i < logMax; i++ {
			if br.log[i] != (proposal{}) {
				panic(fmt.Sprintf("tla: malformed broker %s: log slot %d past logLen %d holds %+v", brokerNames[b], i, br.logLen, br.log[i]))
			}
		}
		for i := int(br.shardLen); i < logMax; i++ {
			if br.shard[i] != (proposal{}) {
				panic(fmt.Sprintf("tla: malformed broker %s: shard slot %d past shardLen %d holds %+v", brokerNames[b], i, br.shardLen, br.shard[i]))
			}
		}
	}
}
