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
			return 0, fmt.Errorf("logstore: unknown defect %q (known: split-tables, hook-before-txn, skip-fsync, keep-stale-suffix)", part)
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
