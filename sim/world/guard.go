package world

import (
	cryptorand "crypto/rand" //det:ok the one place that swaps crypto/rand.Reader for a seeded reader during a run
	"errors"
	"fmt"
	"io"
	"sort"
	"sync/atomic"

	"github.com/pingcap/failpoint"
)

// running is the process-wide simulation guard: crypto/rand.Reader and the
// failpoint registry are process globals, so two worlds at once would share
// them and silently lose determinism.
var running atomic.Bool

// guard is what one run changed in the process and must undo.
type guard struct {
	savedReader io.Reader
	failpoints  map[string]bool // armed by this run; disarmed at release
}

// acquireGuard claims the process for one run and installs r, a reader
// fed from the run's seed, as crypto/rand.Reader. A second concurrent
// world panics: that is a harness bug that would otherwise pass silently.
func acquireGuard(r io.Reader) (*guard, error) {
	if !running.CompareAndSwap(false, true) {
		panic("sim: a second World was opened while another is still open in this process; " +
			"crypto/rand.Reader and failpoints are process-global, so runs must be sequential (Close the first) or in separate processes")
	}
	g := &guard{savedReader: cryptorand.Reader, failpoints: map[string]bool{}}
	cryptorand.Reader = r
	return g, nil
}

// release disarms the run's failpoints, restores crypto/rand.Reader and
// frees the process for the next run.
func (g *guard) release() error {
	names := make([]string, 0, len(g.failpoints))
	for name := range g.failpoints {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		if err := failpoint.Disable(name); err != nil {
			errs = append(errs, fmt.Errorf("sim: disarm failpoint %s: %w", name, err))
		}
	}
	cryptorand.Reader = g.savedReader
	running.Store(false)
	return errors.Join(errs...)
}

// ArmFailpoint enables failpoint name with a deterministic term (such as
// "return(true)" or "panic"); the run disarms it at Close. Probability terms
// ("50%return") draw from a wall-clock-seeded global generator and are
// refused.
func (w *World) ArmFailpoint(name, term string) error {
	for i := 0; i < len(term); i++ {
		if term[i] == '%' {
			return fmt.Errorf("sim: failpoint %s term %q refused: probability terms are not deterministic; decide from a seeded stream instead", name, term)
		}
	}
	if err := failpoint.Enable(name, term); err != nil {
		return fmt.Errorf("sim: arm failpoint %s=%s: %w", name, term, err)
	}
	w.g.failpoints[name] = true
	return nil
}

// DisarmFailpoint disables failpoint name before the run ends.
func (w *World) DisarmFailpoint(name string) error {
	if !w.g.failpoints[name] {
		return fmt.Errorf("sim: disarm failpoint %s refused: this run did not arm it", name)
	}
	delete(w.g.failpoints, name)
	return failpoint.Disable(name)
}
