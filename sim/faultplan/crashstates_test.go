package faultplan

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/vfs"
)

func twoFileSetup() *vfs.Mem {
	m := vfs.NewMem()
	for _, name := range []string{"a", "b"} {
		f, _ := m.Create(name)
		f.Write(bytes.Repeat([]byte{1}, 100))
		f.Sync()
		f.Write(bytes.Repeat([]byte{2}, 1000)) // tail spans sectors 0..2 of the file
		f.Close()
	}
	m.SyncDir(".")
	return m
}

func TestEnumerateCrashStatesVisitsEveryCombination(t *testing.T) {
	seen := map[[2]int]bool{}
	n, err := EnumerateCrashStates(twoFileSetup, func(m *vfs.Mem) error {
		a, _ := vfs.ReadAll(m, "a")
		b, _ := vfs.ReadAll(m, "b")
		seen[[2]int{len(a), len(b)}] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each file's unsynced tail covers 3 sectors: keep 0, 1, 2 or 3 of them.
	if n != 16 || len(seen) != 16 {
		t.Fatalf("%d states, %d distinct; want 16", n, len(seen))
	}
	for _, l := range []int{100, 512, 1024, 1100} {
		if !seen[[2]int{l, 100}] {
			t.Fatalf("state with a=%d bytes, b untouched never visited: %v", l, seen)
		}
	}
}

// TestEnumerateCrashStatesFindsPlantedBug: a check demanding that both
// files keep the same length (a two-file "atomic" write without a commit
// point) must fail on some crash state.
func TestEnumerateCrashStatesFindsPlantedBug(t *testing.T) {
	_, err := EnumerateCrashStates(twoFileSetup, func(m *vfs.Mem) error {
		a, _ := vfs.ReadAll(m, "a")
		b, _ := vfs.ReadAll(m, "b")
		if len(a) != len(b) {
			return errors.New("files disagree")
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "files disagree") || !strings.Contains(err.Error(), "tail sectors kept") {
		t.Fatalf("torn two-file write not caught: %v", err)
	}
}
