package runner

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/vfs"
)

// ledgerSpill is where a LedgerSink's steps wait: the newest
// ledgerHeldMax in memory, the older ones in a scratch file (vfs.Scratch:
// unlinked as soon as it is made, so nothing is left behind however the
// process ends; a 60 s run never makes one), one line per step in trace
// order, each starting with its raft group (so one group's steps are read
// back without decoding the others') and its kind:
//
//	G P seq broker client request digest tenant   a write's proposal
//	G C seq broker client request digest tenant   a command's proposal
//	G A seq index refused                         command seq first applied (refused 0 or 1)
//	G L seq digest offset broker                  a record written (one broker's apply)
//
// seq numbers the steps of a kind (P, C, L) in trace order; an A line
// names its command's, and G is its command's group. Where the steps
// wait changes no run.
//
// Invariant: the file holds the steps kept before held's, in order; once
// it has failed nothing more is written (held keeps growing, reads
// report the error).
type ledgerSpill struct {
	file *vfs.LineFile
	line []byte
	held []ledgerStep
	// heldMax is how many steps it holds (ledgerHeldMax but in tests).
	heldMax int
}

// ledgerHeldMax is how many steps a ledger holds in memory before it
// writes them to its file: a 60 s default run's (about 30,000) stay.
const ledgerHeldMax = 1 << 15

// ledgerStep is one step kept: its kind ('P', 'C', 'A' or 'L'), raft
// group, numbers (as the line format above lists them) and a proposal's
// tenant.
type ledgerStep struct {
	kind   byte
	group  uint64
	nums   [5]uint64
	tenant string
}

// ledgerLineLenMax caps a line a read accepts (a tenant name is short).
const ledgerLineLenMax = 1 << 16

// sunkProposal is a Request step as kept: raft ids and sim ids as the
// trace has them. A command's applied is the index its entry was first
// applied at (0: not applied), applyErr whether that apply refused it.
type sunkProposal struct {
	seq, broker, client, request, group, digest uint64
	tenant                                      string
	applied                                     uint64
	applyErr                                    bool
}

// sunkLanding is one record written, with every broker that applied it;
// seq is its first apply's.
type sunkLanding struct {
	key     landingKey
	brokers []uint64
	seq     uint64
}

type landingKey struct{ digest, group, offset uint64 }

// sunkLedger is the steps read back: the proposals and commands in trace
// order, the landings in the order first applied, deduplicated.
type sunkLedger struct {
	proposals, commands []sunkProposal
	landings            []sunkLanding
}

// proposal keeps a Request step (kind 'P' or 'C') numbered seq.
func (s *ledgerSpill) proposal(kind byte, st *modeltrace.Step, seq uint64) {
	s.keep(ledgerStep{kind: kind, group: st.Group, nums: [5]uint64{seq, st.Broker, st.Client, st.ReqID, st.Digest}, tenant: st.Asked.Tenant})
}

// applied keeps that command seq of group was first applied at index.
func (s *ledgerSpill) applied(group, seq, index uint64, refused bool) {
	r := uint64(0)
	if refused {
		r = 1
	}
	s.keep(ledgerStep{kind: 'A', group: group, nums: [5]uint64{seq, index, r}})
}

// landing keeps a written Apply step numbered seq.
func (s *ledgerSpill) landing(st *modeltrace.Step, seq uint64) {
	s.keep(ledgerStep{kind: 'L', group: st.Group, nums: [5]uint64{seq, st.Digest, st.Offset, st.Broker}})
}

// keep holds st, writing the held steps to the file once ledgerHeldMax
// pile up (a failure is kept; the steps then stay held).
func (s *ledgerSpill) keep(st ledgerStep) {
	s.held = append(s.held, st)
	if len(s.held) < s.heldMax || s.file != nil && s.file.Err() != nil {
		return
	}
	if s.file == nil {
		s.file = vfs.NewLineFile("ledger spill", "", "felixsim-ledger-*.txt", 64<<10, ledgerLineLenMax)
	}
	for i := range s.held {
		if s.file.Append(s.encode(&s.held[i])) != nil {
			return
		}
	}
	s.held = s.held[:0]
}

// encode is st's line.
func (s *ledgerSpill) encode(st *ledgerStep) []byte {
	b := strconv.AppendUint(s.line[:0], st.group, 10)
	b = append(b, ' ', st.kind)
	for _, v := range st.nums[:ledgerFieldCounts[st.kind]] {
		b = strconv.AppendUint(append(b, ' '), v, 10)
	}
	if st.kind == 'P' || st.kind == 'C' {
		b = strconv.AppendQuote(append(b, ' '), st.tenant)
	}
	s.line = append(b, '\n')
	return s.line
}

// read returns the steps of the groups take wants, and the commands of
// any group whose sender (a sim id) command wants, with their applies.
func (s *ledgerSpill) read(take func(group uint64) bool, command func(client uint64) bool) (*sunkLedger, error) {
	r := ledgerReader{k: &sunkLedger{}, commandAt: map[uint64]int{}, landingAt: map[landingKey]int{}, take: take, command: command}
	if s.file != nil {
		if err := s.file.Scan(func(_ int, line []byte) error { return r.line(line) }); err != nil {
			return nil, err
		}
	}
	for i := range s.held {
		r.step(&s.held[i])
	}
	return r.k, nil
}

// ledgerReader rebuilds a sunkLedger step by step. commandAt and
// landingAt are only looked up.
type ledgerReader struct {
	k         *sunkLedger
	commandAt map[uint64]int
	landingAt map[landingKey]int
	// take says which groups' steps are kept; command which senders'
	// commands are kept whatever their group (nil: none more).
	take    func(group uint64) bool
	command func(client uint64) bool
}

// line reads one line into a step and keeps it (see step).
func (r *ledgerReader) line(b []byte) error {
	f := bytes.SplitN(b, []byte(" "), 3)
	if len(f) != 3 || len(f[1]) != 1 {
		return fmt.Errorf("%d fields, no kind", len(f))
	}
	st := ledgerStep{kind: f[1][0]}
	var err error
	if st.group, err = strconv.ParseUint(string(f[0]), 10, 64); err != nil {
		return err
	}
	if !r.take(st.group) && st.kind != 'C' && st.kind != 'A' {
		return nil
	}
	var nums []uint64
	if nums, st.tenant, err = ledgerFields(st.kind, f[2]); err != nil {
		return err
	}
	copy(st.nums[:], nums)
	return r.step(&st)
}

// step keeps st when take wants its group (a command of a sender command
// wants, or the apply of a command kept, whatever its group).
func (r *ledgerReader) step(st *ledgerStep) error {
	_, kept := r.commandAt[st.nums[0]]
	switch {
	case r.take(st.group):
	case st.kind == 'C' && r.command != nil && r.command(st.nums[2]):
	case st.kind == 'A' && kept:
	default:
		return nil
	}
	n := &st.nums
	switch st.kind {
	case 'P', 'C':
		p := sunkProposal{seq: n[0], broker: n[1], client: n[2], request: n[3], group: st.group, digest: n[4], tenant: st.tenant}
		if st.kind == 'P' {
			r.k.proposals = append(r.k.proposals, p)
		} else {
			r.commandAt[p.seq] = len(r.k.commands)
			r.k.commands = append(r.k.commands, p)
		}
	case 'A':
		i, ok := r.commandAt[n[0]]
		if !ok {
			return fmt.Errorf("command %d applied before it was proposed", n[0])
		}
		r.k.commands[i].applied, r.k.commands[i].applyErr = n[1], n[2] == 1
	case 'L':
		r.land(landingKey{digest: n[1], group: st.group, offset: n[2]}, n[3], n[0])
	}
	return nil
}

// land adds one broker's apply of a landing (seq numbers the apply).
func (r *ledgerReader) land(k landingKey, broker, seq uint64) {
	if i, ok := r.landingAt[k]; ok {
		if ld := &r.k.landings[i]; !slices.Contains(ld.brokers, broker) {
			ld.brokers = append(ld.brokers, broker)
		}
		return
	}
	r.landingAt[k] = len(r.k.landings)
	r.k.landings = append(r.k.landings, sunkLanding{key: k, brokers: []uint64{broker}, seq: seq})
}

// ledgerFieldCounts are how many numbers each kind's line carries after
// its group and kind (a P or C line then ends with its quoted tenant).
var ledgerFieldCounts = map[byte]int{'P': 5, 'C': 5, 'A': 3, 'L': 4}

// ledgerFields parses a line's fields after its group and kind.
func ledgerFields(kind byte, rest []byte) (nums []uint64, tenant string, err error) {
	want, ok := ledgerFieldCounts[kind]
	if !ok {
		return nil, "", fmt.Errorf("kind %q", kind)
	}
	proposal := kind == 'P' || kind == 'C'
	parts := want
	if proposal {
		parts++
	}
	f := bytes.SplitN(rest, []byte(" "), parts)
	if len(f) != parts {
		return nil, "", fmt.Errorf("a %q line of %d fields", kind, len(f)+2)
	}
	for _, x := range f[:want] {
		v, err := strconv.ParseUint(string(x), 10, 64)
		if err != nil {
			return nil, "", err
		}
		nums = append(nums, v)
	}
	if proposal {
		tenant, err = strconv.Unquote(string(f[want]))
	}
	return nums, tenant, err
}

// close releases the file.
func (s *ledgerSpill) close() error {
	if s.file == nil {
		return nil
	}
	return s.file.Close()
}
