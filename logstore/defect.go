package logstore

import (
	"fmt"
	"strings"

	"go.etcd.io/raft/v3/raftpb"
)

// Defects is a set of planted bugs, each the shape of a real mistake in a
// store, so that tests and the simulator can show their checkers catch it.
// The zero set is the correct store.
type Defects uint32

// The planted bugs.
const (
	// DefectSplitTables commits each table frame as its own transaction,
	// with its own marker and fsync: a crash can leave some tables written.
	DefectSplitTables Defects = 1 << iota
	// DefectHookBeforeTxn evaluates the crash failpoint before the
	// transaction writes any byte: the card's first false pass.
	DefectHookBeforeTxn
	// DefectSkipFsync never fsyncs: a power loss loses acknowledged commits.
	DefectSkipFsync
	// DefectKeepStaleSuffix overwrites a conflicting suffix in place
	// instead of truncating it: when the new entries end before the old
	// log did, the old entries beyond them stay, from an older term.
	DefectKeepStaleSuffix
	// DefectCutLastTxn makes Open, when the file ends in a partial or torn
	// transaction, truncate it where the last whole transaction begins
	// instead of where it ends (an off-by-one transaction): every crash
	// that leaves a transaction half-written also loses the one before
	// it, which was synced and acknowledged.
	DefectCutLastTxn
	defectEnd
)

var defectNames = []struct {
	d    Defects
	name string
}{
	{DefectSplitTables, "split-tables"},
	{DefectHookBeforeTxn, "hook-before-txn"},
	{DefectSkipFsync, "skip-fsync"},
	{DefectKeepStaleSuffix, "keep-stale-suffix"},
	{DefectCutLastTxn, "cut-last-txn"},
}

// String renders the set as comma-separated names ("none" when empty).
func (d Defects) String() string {
	if d == 0 {
		return "none"
	}
	var names []string
	for _, n := range defectNames {
		if d&n.d != 0 {
			names = append(names, n.name)
		}
	}
	if d >= defectEnd {
		names = append(names, fmt.Sprintf("unknown(%#x)", uint32(d&^(defectEnd-1))))
	}
	return strings.Join(names, ",")
}

// ParseDefects parses String's output.
func ParseDefects(s string) (Defects, error) {
	if s == "none" || s == "" {
		return 0, nil
	}
	var d Defects
	for _, part := range strings.Split(s, ",") {
		found := false
		for _, n := range defectNames {
			if part == n.name {
				d |= n.d
				found = true
			}
		}
		if !found {
			var known []string
			for _, n := range defectNames {
				known = append(known, n.name)
			}
			return 0, fmt.Errorf("logstore: unknown defect %q (known: %s)", part, strings.Join(known, ", "))
		}
	}
	return d, nil
}

// keepStaleSuffix is DefectKeepStaleSuffix: after an append left next
// shorter than old (a conflicting suffix replaced by fewer entries), the
// old entries beyond next's end are kept. Both slices start at the same
// compaction point; neither is modified.
func keepStaleSuffix(old, next []*raftpb.Entry) []*raftpb.Entry {
	if len(next) >= len(old) || next[0].GetIndex() != old[0].GetIndex() {
		return next
	}
	out := make([]*raftpb.Entry, 0, len(old))
	out = append(out, next...)
	return append(out, old[len(next):]...)
}

// cutLastTxn is DefectCutLastTxn: when the file's tail past end (the end
// of its last whole transaction) is not empty, it replays buf again up to
// where that transaction begins and returns that offset, for Open to
// truncate the file there. Without the defect it returns end.
func (s *Store) cutLastTxn(buf []byte, end int) (int, error) {
	if s.defects&DefectCutLastTxn == 0 || end == len(buf) {
		return end, nil
	}
	start := lastTxnStart(buf, end)
	s.groups, s.tab, s.seq, s.sealMissing = map[uint64]*group{}, newTables(), 0, nil
	cut, _, err := s.replay(buf[:start])
	return cut, err
}

// lastTxnStart returns where the last whole transaction of buf[:end]
// begins: the end of the transaction before it, or of the header.
func lastTxnStart(buf []byte, end int) int {
	start := len(headerFrame())
	for off := start; off < end; {
		kind, _, next, err := parseFrame(buf, off)
		if err != nil {
			return start
		}
		if kind != kindCommit {
			off = next
			continue
		}
		txnEnd := next + (next - off) // the marker and its copy
		if txnEnd >= end {
			return start
		}
		start, off = txnEnd, txnEnd
	}
	return start
}
