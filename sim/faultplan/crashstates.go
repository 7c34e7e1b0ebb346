package faultplan

import (
	"fmt"

	"github.com/felixsim/felixsim/vfs"
)

// CrashStatesMax caps EnumerateCrashStates; a window with more states is
// refused rather than silently sampled.
const CrashStatesMax = 1 << 16

// EnumerateCrashStates checks every state a crash could leave after a short
// window of writes: for each file, any number of its unsynced tail sectors
// may survive (torn at sector granularity), independently per file. setup
// must rebuild the same pre-crash filesystem on every call (it is run once
// per state); check is called on each crashed filesystem and the first error
// is returned with the state that produced it. Directory entries follow
// SyncDir as in vfs.Mem.Crash; only file contents are enumerated.
func EnumerateCrashStates(setup func() *vfs.Mem, check func(m *vfs.Mem) error) (states int, err error) {
	var names []string
	var radix []int
	probe := setup()
	probe.Crash(vfs.TornTail(func(name string, tailSectors int) int {
		names = append(names, name) // Crash visits files in name order
		radix = append(radix, tailSectors+1)
		return 0
	}))
	total := 1
	for i, r := range radix {
		if total > CrashStatesMax/r {
			return 0, fmt.Errorf("sim: crash-state enumeration refused: more than %d states (file %s alone has %d)", CrashStatesMax, names[i], r)
		}
		total *= r
	}
	choice := make([]int, len(radix))
	for s := 0; s < total; s++ {
		rest := s
		for i, r := range radix {
			choice[i], rest = rest%r, rest/r
		}
		m := setup()
		i := 0
		m.Crash(vfs.TornTail(func(name string, tailSectors int) int {
			if i >= len(names) || names[i] != name || radix[i] != tailSectors+1 {
				panic(fmt.Sprintf("sim: setup is not deterministic: crash visited %s with %d tail sectors, first run had %v %v", name, tailSectors, names, radix))
			}
			i++
			return choice[i-1]
		}))
		if err := check(m); err != nil {
			return s + 1, fmt.Errorf("crash state %d of %d (tail sectors kept per file %v = %v): %w", s+1, total, names, choice, err)
		}
	}
	return total, nil
}
