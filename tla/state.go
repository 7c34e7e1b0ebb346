package tla

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/felixsim/felixsim/modeltrace"
)

// proposal is one raft log entry (term > 0) or, with term 0, one applied
// shard record. A zero proposal marks an empty slot; a membership change
// (kind kindConf) has cid 0 and carries the configuration it gives.
type proposal struct {
	term uint8
	cid  uint8
	kind uint8
	// exp is the expected offset (1-based) of a commit_if, 0 for a commit.
	exp  uint8
	part uint8
	// voters and learners are a membership change's configuration (bit
	// sets of brokers; 0 for any other entry).
	voters   uint8
	learners uint8
}

// slot is one key of a state view: val is the commit id that wrote it (0:
// absent) and ver the 1-based offset of that record.
type slot struct {
	val uint8
	ver uint8
}

// Reply states.
const (
	replyNone    uint8 = 0
	replyWritten uint8 = 1
	replyRefused uint8 = 2
)

// answer is a leader's reply to a commit's client: written at offset at,
// or refused with at the true next offset; idx is the raft index applied,
// exp the offset a commit_if expected and term the answering leader's.
type answer struct {
	st   uint8
	at   uint8
	idx  uint8
	exp  uint8
	term uint8
}

// Roles a broker takes in its current term.
const (
	roleFollower  uint8 = 0
	roleCandidate uint8 = 1
	roleLeader    uint8 = 2
)

var roleNames = [...]string{"follower", "candidate", "leader"}

// broker is one broker's variables. Offsets and indexes are 1-based as in
// the TLA+ model; slots past logLen and shardLen are zero.
type broker struct {
	// term is the broker's current term and votedFor its vote in it (1 +
	// the candidate's index, 0 for None); both persisted.
	term     uint8
	votedFor uint8
	// role is the broker's role in term (volatile).
	role uint8
	// votes is the bit set of brokers whose vote for it in term reached it
	// (a candidate's; 0 otherwise).
	votes uint8
	// acked[q] is the highest index q acknowledged holding to it in term
	// (a leader's; 0 otherwise).
	acked  [BrokersMax]uint8
	log    [logMax]proposal
	logLen uint8
	// durable is how much of the log is persisted: a crash keeps only
	// that prefix. Invariant: durable <= logLen.
	durable uint8
	// commit is the quorum committed mark the broker knows.
	// Invariant: applied <= commit <= logLen.
	commit  uint8
	applied uint8
	shard   [logMax]proposal
	// Invariant: shardLen <= applied (+1 while mid).
	shardLen uint8
	kv       [keysMax]slot
	mid      bool
	// confAt is the index of the last membership change the broker applied
	// (0: none), voters and learners the configuration it gives (bit
	// sets); persisted, so a crash keeps them.
	// Invariant: voters&learners == 0.
	confAt   uint8
	voters   uint8
	learners uint8
}

// State is one state of the model: every TLA+ variable, in fixed-size
// arrays of bytes so that it has no padding and no pointers and its bytes
// are its fingerprint's input. Unused slots are always zero.
type State struct {
	nextCid uint8
	// nconf counts the membership changes leaders proposed.
	nconf uint8
	b     [BrokersMax]broker
	reply [CommitsMax]answer
}

// stateBytes is the size of State; a test checks it has no padding.
const stateBytes = int(unsafe.Sizeof(State{}))

// bytes returns the state's memory as bytes (read-only use).
func (s *State) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(s)), stateBytes)
}

// fingerprint hashes the state's bytes to 64 bits (TLC keeps 64-bit
// fingerprints too). The mixing is fixed, so counts are the same on every
// run and machine.
func (s *State) fingerprint() uint64 {
	b := s.bytes()
	h := uint64(0x243F6A8885A308D3) ^ uint64(len(b))
	for len(b) >= 8 {
		h = mixWord(h, binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	var tail [8]byte
	copy(tail[:], b)
	h = mixWord(h, binary.LittleEndian.Uint64(tail[:]))
	return modeltrace.Mix64(h) // the final avalanche
}

// mixWord folds one 64-bit word into h.
func mixWord(h, w uint64) uint64 {
	h ^= w * 0x9E3779B97F4A7C15
	h = (h << 27) | (h >> 37)
	return h*0xC2B2AE3D27D4EB4F + 0x165667B19E3779F9
}

// logSeq returns the broker's raft log.
func (br *broker) logSeq() []proposal { return br.log[:br.logLen] }

// shardSeq returns the broker's applied shard log.
func (br *broker) shardSeq() []proposal { return br.shard[:br.shardLen] }

// truncateLog keeps the first n log entries and zeroes the rest.
func (br *broker) truncateLog(n uint8) {
	for i := n; i < br.logLen; i++ {
		br.log[i] = proposal{}
	}
	br.logLen = n
}

// appendLog appends p to the raft log; a full log is a programmer error.
func (br *broker) appendLog(p proposal) {
	if int(br.logLen) >= logMax {
		panic("tla: raft log full: logLen " + strconv.Itoa(int(br.logLen)) + " >= logMax " + strconv.Itoa(logMax))
	}
	br.log[br.logLen] = p
	br.logLen++
}

// appendShard appends a record to the applied shard log.
func (br *broker) appendShard(r proposal) {
	if int(br.shardLen) >= logMax {
		panic("tla: shard log full: shardLen " + strconv.Itoa(int(br.shardLen)) + " >= logMax " + strconv.Itoa(logMax))
	}
	br.shard[br.shardLen] = r
	br.shardLen++
}

// applyRecord applies record r, written at 1-based offset o, to the view.
func (br *broker) applyRecord(r proposal, o uint8) {
	if r.part != partWhole && r.part != partState {
		return
	}
	for _, op := range commitOps[r.cid-1] {
		if op.del {
			br.kv[op.key] = slot{}
		} else {
			br.kv[op.key] = slot{val: r.cid, ver: o}
		}
	}
}
