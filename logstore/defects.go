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

// The switches: each planted bug is read through one of these, called at
// the step of the store it changes; nothing else in logstore tests a
// Defects bit.

// hookBeforeTxn is DefectHookBeforeTxn: the crash failpoint evaluated for
// every write of a transaction of tables table frames before any is
// written (a no-op otherwise).
func (d Defects) hookBeforeTxn(tables int) {
	if !d.hooksBeforeTxn() {
		return
	}
	for i := 0; i <= tables; i++ {
		crashHook(i)
	}
}

// hooksBeforeTxn reports DefectHookBeforeTxn: the crash failpoint moves
// from inside the transaction to before it.
func (d Defects) hooksBeforeTxn() bool { return d&DefectHookBeforeTxn != 0 }

// splitTables reports DefectSplitTables: each table frame is committed as
// its own transaction.
func (d Defects) splitTables() bool { return d&DefectSplitTables != 0 }

// skipsFsync reports DefectSkipFsync: the store never fsyncs its file.
func (d Defects) skipsFsync() bool { return d&DefectSkipFsync != 0 }

// keepsStaleSuffix reports DefectKeepStaleSuffix: an append keeps a
// conflicting suffix's old entries beyond its own end (keepStaleSuffix).
func (d Defects) keepsStaleSuffix() bool { return d&DefectKeepStaleSuffix != 0 }

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

// cutLastTxn is DefectCutLastTxn: when the file's bytes end past their
// last whole transaction (a partial or torn one follows it), it returns
// buf only up to where that last whole transaction begins, for Open to
// replay, and then truncate the file at the end of what it replayed.
// Without the defect, or with no partial tail, it returns buf.
func (s *Store) cutLastTxn(buf []byte) []byte {
	if s.defects&DefectCutLastTxn == 0 {
		return buf
	}
	if start, end := lastWholeTxn(buf); end < len(buf) {
		return buf[:start]
	}
	return buf
}

// lastWholeTxn returns where the last whole transaction of buf (frames,
// a commit marker and its copy) begins and ends; both are the header's
// end when buf holds none.
func lastWholeTxn(buf []byte) (start, end int) {
	start, end = len(headerFrame()), len(headerFrame())
	for off := end; off < len(buf); {
		kind, _, next, err := parseFrame(buf, off)
		if err != nil {
			return start, end
		}
		if kind != kindCommit {
			off = next
			continue
		}
		txnEnd := next + (next - off) // the marker and its copy
		if txnEnd > len(buf) || string(buf[next:txnEnd]) != string(buf[off:next]) {
			return start, end
		}
		start, end, off = end, txnEnd, txnEnd
	}
	return start, end
}
