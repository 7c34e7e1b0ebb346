// Package sweep runs many seeds of `felixsim run` in worker processes and
// reports the failing ones, each with the exact command that reproduces it.
// It holds the library behind `felixsim sweep` and `felixsim merge`: seed
// ranges and shards (every n-th seed, so a CI matrix or a Kubernetes
// Indexed Job splits one sweep), the worker protocol, the Report with its
// JSON and JUnit encoders and a strict reader, and the merge of shard
// reports.
//
// Workers are processes, never goroutines running simulations: the
// simulator's determinism guards (the raft entropy source, failpoints) are
// process-global, so a process runs one simulation at a time. Each seed
// is one fresh process, `felixsim run --seed N --json ...` of the same
// binary: a seed that crashes the process, leaks memory or corrupts a
// global takes only itself down, and nothing a seed leaves behind can
// reach the next one. A process start costs milliseconds against a run of
// tenths of seconds to seconds, so a long-lived worker reading seeds on
// stdin would buy little and share exactly the state a sweep must not. A
// fraction of the seeds (chosen by the seed, so shards agree) runs with
// --check-determinism: twice in its process, trace hashes compared.
//
// The sweep itself is outside the simulated path: it uses goroutines, the
// wall clock and os/exec. It speaks to the runs only through the CLI's
// flags, JSON and exit codes, imports only properties (a failing seed's
// family is its invariant's, from the registry), coverage (which points
// are declared optional) and sim/verdict (the one rule that turns a run's
// exit code, and the seeds' families, into a verdict), and must not be imported by any simulated
// package (sim/detcheck/layers.go).
//
// Besides the failing seeds, a report counts and lists the vacuous seeds
// (runs that reported too little progress for their checks to mean much)
// and sums every run's coverage counts, so that a fault kind or a path no
// seed of the range reached shows as never hit. It also keeps the union
// of the projected model states the runs visited, and with Steer runs the
// seeds in rounds, each with a steering arm weighted by the states its
// arm found first in earlier rounds (steer.go): the arms depend on the
// seeds alone, never on the jobs or the order in which workers finish.
package sweep
