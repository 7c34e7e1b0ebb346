package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// storeDefectCases: the store-against-memory check's planted bugs, each
// with the invariant that must name it and the seed budget that must catch
// it (the largest seeds-to-detection measured, docs/performance.md, with
// some slack).
var storeDefectCases = []checkerDefectCase{
	// A relay's trim leaves its last row in the store: the first durable
	// round the check samples after a trim sees an outbox that starts
	// below memory's. No other check sees it (the relay reads on from its
	// own position); every seed catches it.
	{defect: "outbox-trim-one-short", invariant: properties.InvariantStoreMatchesMemory, faults: "none", seedsMax: 1},
	// A snapshot install writes the consumer groups the replica had before
	// (none, on a replacement broker) while memory takes the snapshot's:
	// the install round is always compared.
	{defect: "install-keeps-old-groups", invariant: properties.InvariantStoreMatchesMemory, faults: "diskreplace,kill", gapNs: 2e9, seedsMax: 4},
}

// TestStoreDefectsCaught: each store defect is reported under
// StoreMatchesMemory within its seed budget, and the catching seed passes
// without the defect.
func TestStoreDefectsCaught(t *testing.T) { assertCaughtUnderInvariant(t, storeDefectCases) }

// runStoreCheckOff runs seed for 10 simulated seconds under faults (gap
// gapNs) with the named defect on and the store-against-memory check off.
func runStoreCheckOff(t *testing.T, defect, faults string, gapNs int64, seed uint64) *Result {
	t.Helper()
	f, err := ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDefects(defect)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runWith(Options{Seed: seed, DurationNs: 10e9, FaultGapMeanNs: gapNs, Faults: f, Defects: d}, func(r *run) { r.inRun.store.everyRounds = 0 })
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOnlyTheStoreCheckSeesATrimOneShort: with the check off, the outbox
// defect's seed passes every other check (memory is right, and nothing
// restarts); with it on, it fails under StoreMatchesMemory.
func TestOnlyTheStoreCheckSeesATrimOneShort(t *testing.T) {
	if res := runStoreCheckOff(t, "outbox-trim-one-short", "none", 0, 1); !res.OK() {
		t.Fatalf("with the store check off, a check other than StoreMatchesMemory failed:\n%s", res.Summary())
	}
	if res := runDefectPlan(t, "outbox-trim-one-short", "none", 0, 1, true); !hasViolation(res.Violations, properties.InvariantStoreMatchesMemory) {
		t.Fatalf("with the store check on: %s", violationNames(res))
	}
}

// TestOnlyTheStoreCheckSeesNoFsyncWithoutFaults: a store that never
// fsyncs loses nothing while no broker crashes, so with no faults every
// other check passes (its catch plan, checkerDefectCases, needs kills);
// the store check sees at once that nothing memory holds is durable.
func TestOnlyTheStoreCheckSeesNoFsyncWithoutFaults(t *testing.T) {
	if res := runStoreCheckOff(t, "no-fsync", "none", 0, 1); !res.OK() {
		t.Fatalf("with the store check off, a check other than StoreMatchesMemory failed:\n%s", res.Summary())
	}
	if res := runDefectPlan(t, "no-fsync", "none", 0, 1, true); !hasViolation(res.Violations, properties.InvariantStoreMatchesMemory) {
		t.Fatalf("with the store check on: %s", violationNames(res))
	}
}

// TestTargetedRestartCatchesAStaleInstall: with the store check off, a
// broker restarted right after a snapshot install (restartafter) reads
// back the consumer groups install-keeps-old-groups left out of its store,
// and the group checks see positions move back; the same seeds with plain
// kills instead never restart a broker in that window and pass. Measured
// (seeds 1..30, 10 s): restartafter catches 7, kill 0.
func TestTargetedRestartCatchesAStaleInstall(t *testing.T) {
	const seedsMax = 4
	for s := uint64(1); s <= seedsMax; s++ {
		res := runStoreCheckOff(t, "install-keeps-old-groups", "diskreplace,restartafter", 2e9, s)
		if res.OK() {
			continue
		}
		if !hasViolation(res.Violations, properties.InvariantGroupPositionMonotonic) && !hasViolation(res.Violations, properties.InvariantGroupStateAgreement) {
			t.Fatalf("seed %d failed otherwise: %s", s, violationNames(res))
		}
		t.Logf("caught on seed %d by %s", s, violationNames(res))
		for u := uint64(1); u <= s; u++ {
			if plain := runStoreCheckOff(t, "install-keeps-old-groups", "diskreplace,kill", 2e9, u); !plain.OK() {
				t.Fatalf("seed %d with plain kills caught it too (%s): the catch is not the targeted timing's", u, violationNames(plain))
			}
		}
		return
	}
	t.Fatalf("restartafter did not catch install-keeps-old-groups in seeds 1..%d with the store check off", seedsMax)
}

// TestStoreCheckForgetsRetiredIdentities: after a run whose disks are
// replaced (each slot's old identity never comes back), the store check
// holds a follower and scope books only for the identities the slots run
// at the end, not a decoded copy of every store there ever was.
func TestStoreCheckForgetsRetiredIdentities(t *testing.T) {
	f, err := ParseFaults("diskreplace")
	if err != nil {
		t.Fatal(err)
	}
	var r *run
	res, err := runWith(Options{Seed: 1, DurationNs: 20e9, FaultGapMeanNs: 2e9, Faults: f}, func(built *run) { r = built })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Replaced) == 0 {
		t.Fatal("no disk was replaced: the test shows nothing")
	}
	current := map[uint64]bool{}
	for slot := 0; slot < r.c.Brokers(); slot++ {
		current[r.c.IdentityOf(slot)] = true
	}
	sc := &r.inRun.store
	for _, m := range []map[uint64]bool{keysOf(sc.durable), keysOf(sc.books), keysOf(sc.rounds)} {
		for id := range m {
			if !current[id] {
				t.Errorf("the store check still holds retired identity %d (replaced: %v)", id, res.Replaced)
			}
		}
	}
}

// keysOf is a map's key set.
func keysOf[V any](m map[uint64]V) map[uint64]bool {
	out := map[uint64]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// TestStoreCheckKeepsTheHash: comparing store and memory at every durable
// round changes nothing in the run (the same trace hash as with the check
// off) and finds nothing on a clean seed under every fault kind.
func TestStoreCheckKeepsTheHash(t *testing.T) {
	var hashes [2]uint64
	for i, every := range []uint64{0, 1} {
		res, err := runWith(Options{Seed: 3, DurationNs: 5e9, Faults: AllFaults()}, func(r *run) { r.inRun.store.everyRounds = every })
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Fatalf("store check every %d rounds:\n%s", every, res.Summary())
		}
		hashes[i] = res.TraceHash
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("trace hash %016x with the store check off, %016x with it at every round", hashes[0], hashes[1])
	}
}
