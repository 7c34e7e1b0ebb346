#!/usr/bin/env bash
# profile-subsystems.sh: where a default run's CPU goes, by subsystem.
#
# Profiles sim/runner's BenchmarkDefaultRun (BENCH_TIME default 3x: seeds
# 1..3, -cpu 1, GOGC=400 as felixsim runs; no trace validation, which
# `felixsim run` adds) with -cpuprofile, or reads PROFILE=FILE (with
# BINARY=its test binary) instead, then reads every sampled stack (`go tool
# pprof -traces -lines`) and counts each sample once, for the subsystem of the
# frame nearest the leaf that belongs to one (so an allocation is charged
# to the code that allocated):
#
#   GC        the background collector, sweeper and scavenger, and the
#             mark assists a goroutine pays while allocating
#   raft      go.etcd.io/raft/v3
#   store     logstore, vfs (commit, rewrite, boot replay, raft storage)
#   trace     tla, modeltrace, the broker's tracer (node/tracehook.go)
#             and the runner's validation (sim/runner/tracevalidation.go)
#   checks    properties, porcupine, and sim/runner's checks (check*.go,
#             inrun*.go, evidence.go, vacuous.go)
#   broker    the rest of node, and statemachine
#   wire      wire (encoding and decoding of records and messages)
#   workload  sim/workload and client
#   relay     sim/relay
#   world     sim/world, sim/faultplan, sim/cluster, sim/prng, sim/simapi,
#             moment (events, network, disk, faults, the brokers'
#             processes)
#   runner    the rest of sim/runner (building and driving the run)
#   other     the rest (felix, coverage, the runtime outside GC, the test
#             harness)
#
# and prints each subsystem's share and milliseconds of CPU per simulated
# second (the benchmark's sim-s/cpu-s metric gives the run's simulated
# seconds; with PROFILE, shares only). Outputs stay in OUT (default a fresh
# temp dir).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d /tmp/profile-subsystems.XXXXXX)}
mkdir -p "$out"
prof=${PROFILE:-}
binary=${BINARY:-}
sim_seconds=""
if [ -z "$prof" ]; then
  prof=$out/cpu.prof
  binary=$out/runner.test
  (cd "$root" && go test -c -o "$binary" ./sim/runner)
  (cd "$out" && GOGC=${GOGC:-400} "$binary" -test.run '^$' -test.bench '^BenchmarkDefaultRun$' -test.benchtime "${BENCH_TIME:-3x}" \
    -test.cpu 1 -test.cpuprofile "$prof" > "$out/bench.txt") || { cat "$out/bench.txt" >&2; exit 1; }
  grep '^BenchmarkDefaultRun' "$out/bench.txt"
  # sim seconds = iterations x ns/op x (sim-s/wall-s) / 1e9.
  sim_seconds=$(awk '/^BenchmarkDefaultRun/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") ns = $i; if ($(i+1) == "sim-s/wall-s") r = $i }; print $2 * ns * r / 1e9 }' "$out/bench.txt")
fi
go tool pprof -traces -lines ${binary:+"$binary"} "$prof" > "$out/traces.txt"

python3 - "$out/traces.txt" "$sim_seconds" "$("$root"/scripts/doc-rev.sh)" <<'EOF'
import re, sys

M = "github.com/felixsim/felixsim/"
RUNNER_CHECKS = ("check.go", "check_cluster.go", "check_groups.go", "check_linearizable.go", "inrun.go", "inrun_checker.go", "evidence.go", "vacuous.go")
def pkg(f, *names): return any(f.startswith(M + n + ".") for n in names)
# (subsystem, test on a frame's function and source file), tried in order
# on each frame from the leaf up; the first frame that matches names the
# sample.
RULES = [
    ("trace",    lambda f, path: pkg(f, "tla", "modeltrace") or (pkg(f, "node") and path.endswith("/node/tracehook.go"))
                 or (pkg(f, "sim/runner") and path.endswith("/tracevalidation.go"))),
    ("checks",   lambda f, path: pkg(f, "properties") or f.startswith("github.com/anishathalye/porcupine")
                 or (pkg(f, "sim/runner") and path.rsplit("/", 1)[-1] in RUNNER_CHECKS)),
    ("raft",     lambda f, path: f.startswith("go.etcd.io/raft/")),
    ("store",    lambda f, path: pkg(f, "logstore", "vfs")),
    ("wire",     lambda f, path: pkg(f, "wire")),
    ("broker",   lambda f, path: pkg(f, "node", "statemachine")),
    ("workload", lambda f, path: pkg(f, "sim/workload", "client")),
    ("relay",    lambda f, path: pkg(f, "sim/relay")),
    ("world",    lambda f, path: pkg(f, "sim/world", "sim/faultplan", "sim/cluster", "sim/prng", "sim/simapi", "moment")),
    ("runner",   lambda f, path: pkg(f, "sim/runner")),
]
GC = ("runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcAssistAlloc", "runtime.GC", "runtime.gcStart")
UNIT = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "min": 6e4, "hrs": 3.6e6}

def classify(frames):
    if any(f.startswith(GC) for f, _ in frames):
        return "GC"
    for f, path in frames:
        for name, test in RULES:
            if test(f, path):
                return name
    return "other"

totals, block, value = {}, [], None
def flush():
    if value is not None:
        k = classify(block)
        totals[k] = totals.get(k, 0.0) + value
for line in open(sys.argv[1]):
    if line.startswith("-----------+"):
        flush(); block, value = [], None
        continue
    m = re.match(r"^\s+([0-9.]+)(ns|us|µs|ms|s|min|hrs)\s+(\S+)\s*(\S*)", line)
    if m and value is None:
        value = float(m.group(1)) * UNIT[m.group(2)]
        block.append((m.group(3), m.group(4)))
    elif value is not None and line.strip() and not line.strip().startswith(("bytes:", "label")):
        parts = line.split()
        block.append((parts[0], parts[1] if len(parts) > 1 else ""))
flush()
all_ms = sum(totals.values())
sim = float(sys.argv[2]) if sys.argv[2] else 0
print("%-9s %7s %10s%s" % ("subsystem", "share", "CPU ms", "  ms/sim-s" if sim else ""))
for k, v in sorted(totals.items(), key=lambda kv: -kv[1]):
    print("%-9s %6.1f%% %10.0f%s" % (k, 100 * v / all_ms, v, "  %9.2f" % (v / sim) if sim else ""))
print("%-9s %6.1f%% %10.0f%s" % ("all", 100.0, all_ms, "  %9.2f  (%.1f simulated s)" % (all_ms / sim, sim) if sim else ""))
if sim:
    print("\ndocs/performance.md rows:")
    for k, v in sorted(totals.items(), key=lambda kv: -kv[1]):
        print("| %s | %.1f%% | %.1f | %s |" % (k, 100 * v / all_ms, v / sim, sys.argv[3]))
    print("| all (%.1f simulated s) | 100%% | %.1f | %s |" % (sim, all_ms / sim, sys.argv[3]))
EOF
echo "profile: $prof (go tool pprof -top ${binary:+$binary }$prof for functions)"
