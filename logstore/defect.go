package logstore

import (
	"fmt"
	"strings"
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
	defectEnd
)

var defectNames = []struct {
	d    Defects
	name string
}{
	{DefectSplitTables, "split-tables"},
	{DefectHookBeforeTxn, "hook-before-txn"},
	{DefectSkipFsync, "skip-fsync"},
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
			return 0, fmt.Errorf("logstore: unknown defect %q (known: split-tables, hook-before-txn, skip-fsync)", part)
		}
	}
	return d, nil
}
