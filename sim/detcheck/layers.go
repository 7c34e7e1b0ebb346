package detcheck

// layer is one felixsim package's place in the import graph: the one table
// behind the layering check. DESIGN.md draws the arrows (cmd → sim → node →
// {logstore, statemachine} → felix; client is used by sim's workload;
// properties by sim and tla; felix and moment, the leaves, by every layer
// that needs them; nothing imports cmd or sim from below: the broker
// packages node, logstore, statemachine, client and wire import nothing
// under sim/) and each package's doc.go says what it must not import; the
// entries below are those rules written as allow-lists, so a new import is
// a deliberate edit here. Inside sim/ the floors are, from the bottom:
// sim/prng and sim/simapi (what a process sees of the world); sim/world
// (the world); sim/faultplan (the fault plan, which schedules its faults
// on a world); the harness (sim/cluster, sim/workload, sim/relay); and
// the user's tools (sim/runner, sim/scenario, sim/timeline, sim/artifact,
// sim/shrink, sim/sweep, sim/detcheck).
type layer struct {
	// may lists the felixsim packages (module-relative) the package may
	// import. Every other felixsim import is a violation; a //det:ok
	// marker does not silence it (change this table and the doc.go).
	may []string
	// external lists the non-standard modules (import path prefixes) the
	// package may import.
	external []string
	// forbidStd maps standard-library imports the package must not use, in
	// addition to the determinism rules' bannedImports, to the reason.
	forbidStd map[string]string
	// simulated says the package runs inside the simulator, so the
	// determinism rules (CheckFiles) apply to it.
	simulated bool
}

const (
	raftModule      = "go.etcd.io/raft/v3"
	protobufModule  = "google.golang.org/protobuf"
	failpointModule = "github.com/pingcap/failpoint"
	// porcupineModule is the linearizability checker's search (properties
	// only; its wall-clock timeout is never used: budgets count steps).
	porcupineModule = "github.com/anishathalye/porcupine"
	// progressbarModule draws `felixsim sweep`'s live progress bar and
	// termModule tells whether stderr is a terminal; cmd only.
	progressbarModule = "github.com/schollz/progressbar/v3"
	termModule        = "golang.org/x/term"
)

// pureStd is what a package that is handed time as nanoseconds and driven by
// one goroutine must not import (statemachine, wire, client, properties,
// tla; the per-package scanners these rules replace).
var pureStd = map[string]string{
	"time":         "wall clock: time enters as nanoseconds from the caller",
	"math/rand":    "global randomness: draw from the run's seeded stream",
	"math/rand/v2": "global randomness: draw from the run's seeded stream",
	"net":          "I/O: the world is reached through the caller",
	"sync":         "concurrency: one goroutine drives a simulation",
}

// stateMachineStd adds to pureStd what the pure state machine has no use
// for: filesystem paths, the runtime, reflection and unchecked memory.
var stateMachineStd = merge(pureStd, map[string]string{
	"io/fs":         "I/O: the state machine touches no files",
	"path/filepath": "I/O paths: the state machine touches no files",
	"runtime":       "scheduler and environment: the state machine is pure",
	"reflect":       "not needed by a pure state machine",
	"unsafe":        "unchecked memory: not needed by a pure state machine",
})

// layers is the table, keyed by module-relative package path.
var layers = map[string]layer{
	"felix":        {forbidStd: stateMachineStd, simulated: true}, // the leaf: Scope, Record and their limits
	"statemachine": {may: []string{"felix"}, forbidStd: stateMachineStd, simulated: true},
	"coverage":     {forbidStd: pureStd, simulated: true}, // a leaf: every layer counts into it
	"vfs":          {},                                    // the OS boundary: vfs/os.go is the one place that may touch the OS
	"wire":         {may: []string{"felix"}, forbidStd: pureStd, simulated: true},
	"client":       {may: []string{"felix", "wire"}, forbidStd: pureStd, simulated: true},
	"logstore": {may: []string{"felix", "statemachine", "wire", "vfs", "coverage"},
		external: []string{raftModule, protobufModule, failpointModule}, simulated: true},
	"modeltrace": {forbidStd: pureStd, simulated: true},
	// moment names what a broker reports to its host (the simulator's
	// targeted faults wait for it): a leaf beside felix.
	"moment": {forbidStd: pureStd, simulated: true},
	"node": {may: []string{"felix", "logstore", "statemachine", "wire", "vfs", "moment", "coverage", "modeltrace"},
		external: []string{raftModule, protobufModule}, simulated: true},
	"properties": {may: []string{"felix"}, external: []string{porcupineModule}, forbidStd: pureStd, simulated: true},
	"tla":        {may: []string{"felix", "properties", "modeltrace"}, forbidStd: pureStd, simulated: true},
	"sim/prng": {simulated: true, forbidStd: map[string]string{
		"time":         "prng is seeded by the run, never by the clock",
		"math/rand":    "prng is the generator; it must not lean on the global one",
		"math/rand/v2": "prng is the generator; it must not lean on the global one",
	}},
	"sim/simapi": {may: []string{"sim/prng", "vfs", "moment"}, simulated: true,
		forbidStd: map[string]string{"time": "simapi is the clock's interface; it must not offer the wall clock"}},
	// sim/world is the world: clock, events, network, disks, processes,
	// crashes, the trace; it knows a fault plan only as events it fires.
	"sim/world": {may: []string{"sim/prng", "sim/simapi", "vfs", "coverage", "moment"},
		external: []string{failpointModule}, simulated: true},
	// sim/faultplan is the fault plan: kinds, generation, steering, the
	// plan file; it schedules its faults on a world.
	"sim/faultplan": {may: []string{"sim/world", "sim/prng", "vfs", "coverage", "moment"}, simulated: true},
	// sim/world/worldtest is the world's test processes (probe, counter),
	// imported by sim/world's and sim/faultplan's tests only.
	"sim/world/worldtest": {may: []string{"sim/world", "sim/simapi", "vfs"}, simulated: true},
	"sim/cluster": {may: []string{"felix", "sim/world", "sim/simapi", "node", "logstore", "client", "wire", "statemachine", "coverage", "modeltrace"},
		simulated: true},
	"sim/workload": {may: []string{"felix", "sim/world", "sim/faultplan", "sim/simapi", "sim/prng", "sim/cluster", "client", "wire", "statemachine", "properties", "coverage", "vfs"},
		simulated: true},
	"sim/relay": {may: []string{"felix", "sim/world", "sim/simapi", "sim/cluster", "client", "wire", "properties", "vfs"},
		simulated: true},
	// verdict is the one rule from what a run saw to its verdict and
	// exit code: a pure leaf over properties' families.
	"sim/verdict": {may: []string{"properties"}, forbidStd: pureStd, simulated: true},
	"sim/runner": {may: []string{"felix", "sim/world", "sim/faultplan", "sim/cluster", "sim/workload", "sim/relay", "node", "properties", "wire", "coverage", "modeltrace", "tla", "sim/verdict", "vfs"},
		simulated: true},
	// scenario runs scripted broker stories on a cluster and checks them
	// with the runner's properties; its file I/O lives in cmd and tests.
	"sim/scenario": {may: []string{"felix", "sim/world", "sim/faultplan", "sim/cluster", "sim/runner", "node", "client", "properties", "statemachine", "wire", "modeltrace"},
		simulated: true},
	// timeline draws a run as a page: pure, but fed after the run.
	"sim/timeline": {may: []string{"felix", "sim/world", "sim/faultplan", "sim/runner", "sim/verdict", "properties"}, forbidStd: pureStd},
	// artifact reads and writes a run's files: not on the simulated path.
	"sim/artifact": {may: []string{"sim/world", "sim/faultplan", "sim/runner", "sim/timeline", "sim/workload", "sim/verdict", "properties"}},
	"sim/detcheck": {}, // a test-time tool: it reads source files and imports no felixsim package
	// sim/sweep drives worker processes from outside the simulated path
	// (goroutines, wall clock, os/exec) and speaks to runs only through
	// the CLI; it reads the invariants' families from properties' registry
	// and which coverage points are optional from coverage's declarations.
	"sim/sweep": {may: []string{"properties", "coverage", "sim/verdict"}},
	// sim/shrink drives candidate runs in worker processes like sweep,
	// and runs the failing run and the final check through runner.
	"sim/shrink": {may: []string{"felix", "sim/faultplan", "sim/runner", "sim/workload", "sim/artifact", "sim/sweep", "sim/verdict", "properties"}},
	// bench/bareraft drives etcd raft alone at a run's density (the floor
	// under a run); no felixsim package, and counted time only, so the
	// determinism rules hold it to ticks that are counted, not timed.
	"bench/bareraft": {external: []string{raftModule}, simulated: true},
	"cmd/felixsim": {may: []string{"sim/faultplan", "sim/runner", "sim/scenario", "sim/sweep", "sim/shrink", "sim/artifact", "sim/verdict", "properties", "tla", "coverage", "modeltrace"},
		external: []string{progressbarModule, termModule}},
}

// floors are the packages of the layers table by floor, bottom up: a
// package may import only packages on its own floor or below (the table's
// allow-lists say which; TestLayersTableKeepsDesignArrows holds them to
// these floors and to no cycle). The broker (node, logstore, client, with
// statemachine and wire below it) sits under the world, so it imports
// nothing under sim/; the world sits under the fault plan, which schedules
// its faults on a world.
var floors = [...]struct {
	name string
	pkgs []string
}{
	{"leaves", []string{"felix", "moment", "coverage", "modeltrace", "vfs", "sim/prng"}},
	{"model", []string{"statemachine", "wire", "properties", "tla", "sim/verdict"}},
	{"broker", []string{"logstore", "node", "client"}},
	{"world", []string{"sim/simapi", "sim/world"}},
	{"fault plan", []string{"sim/faultplan", "sim/world/worldtest"}},
	{"harness", []string{"sim/cluster", "sim/workload", "sim/relay"}},
	{"tools", []string{"sim/runner", "sim/scenario", "sim/timeline", "sim/artifact", "sim/shrink", "sim/sweep", "sim/detcheck", "bench/bareraft"}},
	{"cmd", []string{"cmd/felixsim"}},
}

// floorOf is the index in floors of rel's floor, or -1.
func floorOf(rel string) int {
	for i, f := range floors {
		for _, p := range f.pkgs {
			if p == rel {
				return i
			}
		}
	}
	return -1
}

func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
