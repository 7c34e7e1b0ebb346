package tla

// The commit table, the same as MCFelixAtomicCommit.tla's AllOps and
// AllKind: commit c (1-based) puts the value c.

// Proposal kinds.
const (
	kindNone     uint8 = 0
	kindCommit   uint8 = 1
	kindCommitIf uint8 = 2
	// kindConf is a membership change's entry (it writes no record).
	kindConf uint8 = 3
)

// Record parts: a whole record, or the two halves SplitRecords writes.
const (
	partNone  uint8 = 0
	partWhole uint8 = 1
	partEvent uint8 = 2
	partState uint8 = 3
)

// commitOp is one state operation of a commit: a put of the commit's id,
// or a delete, of key (0-based).
type commitOp struct {
	del bool
	key uint8
}

// commitOps[c-1] are commit c's operations: commit 1 puts both keys,
// commit 2 overwrites k1 and deletes k2, commit 3 puts k2.
var commitOps = [CommitsMax][]commitOp{
	{{key: 0}, {key: 1}},
	{{key: 0}, {del: true, key: 1}},
	{{key: 1}},
}

// commitKind[c-1] is commit c's kind: commit 1 plain, 2 and 3 commit_if.
var commitKind = [CommitsMax]uint8{kindCommit, kindCommitIf, kindCommitIf}

var keyNames = [keysMax]string{"k1", "k2"}
var brokerNames = [BrokersMax]string{"b1", "b2", "b3", "b4"}
var commitNames = [CommitsMax + 1]string{"none", "c1", "c2", "c3"}
