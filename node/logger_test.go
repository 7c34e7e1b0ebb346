package node

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.etcd.io/raft/v3/raftpb"
)

// TestLoggerLinesAsIfFormattedAtTheCall: a line is formatted when Lines
// reads it, yet reads as it would have at the call: plain values are kept
// as given, and a line with an argument that can change later (a pointer,
// a slice) is formatted at once.
func TestLoggerLinesAsIfFormattedAtTheCall(t *testing.T) {
	now := int64(5)
	l := NewLogger(2, func() int64 { return now })
	type progress struct{ match uint64 }
	pr := &progress{match: 7}
	entries := []uint64{1, 2}
	l.Infof("%x became leader at term %d (%s)", uint64(2), uint64(3), raftpb.MsgVote)
	now = 9
	l.Warningf("progress %+v entries %v err %v", pr, entries, errors.New("boom"))
	l.Info("plain ", 4, " ", true)
	l.Error("pointer ", pr)
	pr.match, entries[0] = 99, 99
	now = 11
	want := []string{
		"t=5ns n2 INFO 2 became leader at term 3 (MsgVote)",
		"t=9ns n2 WARN progress &{match:7} entries [1 2] err boom",
		"t=9ns n2 INFO plain 4 true",
		"t=9ns n2 ERROR pointer &{7}",
	}
	if got := l.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLoggerRingKeepsTheNewest: past LogLinesMax lines the oldest go, and
// Lines returns the rest oldest first.
func TestLoggerRingKeepsTheNewest(t *testing.T) {
	l := NewLogger(1, func() int64 { return 0 })
	for i := 0; i < LogLinesMax+3; i++ {
		l.Infof("line %d", i)
	}
	got := l.Lines()
	if len(got) != LogLinesMax {
		t.Fatalf("%d lines kept, want %d", len(got), LogLinesMax)
	}
	for i, line := range got {
		if want := fmt.Sprintf("t=0ns n1 INFO line %d", i+3); line != want {
			t.Fatalf("line %d is %q, want %q", i, line, want)
		}
	}
}
