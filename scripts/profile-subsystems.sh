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
#   StoreMatchesMemory
#             every sample under the in-run store check
#             (sim/runner/inrun_store*.go: following each broker's durable
#             bytes, the comparisons), whatever it called
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
# seconds; with PROFILE, shares only) beside its budget: budgets are kept
# in scripts/subsystem-budgets.txt in floors (etcd raft alone at a default
# run's density), and the floor is measured in the same session
# (bench/bareraft's BenchmarkBareRaft, FLOOR_TIME default 3x, -cpu 1, the
# same GOGC; FLOOR_MS=ms per simulated second skips it). A subsystem over
# its budget is marked OVER and the script then exits 1 (after printing
# everything); with PROFILE it prints shares only and judges nothing. Outputs
# stay in OUT (default a fresh temp dir).
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

floor_ms=${FLOOR_MS:-}
if [ -z "$floor_ms" ] && [ -n "$sim_seconds" ]; then
  (cd "$root" && go test -c -o "$out/bareraft.test" ./bench/bareraft)
  (cd "$out" && GOGC=${GOGC:-400} "$out/bareraft.test" -test.run '^$' -test.bench '^BenchmarkBareRaft$' -test.benchtime "${FLOOR_TIME:-3x}" \
    -test.cpu 1 > "$out/floor.txt") || { cat "$out/floor.txt" >&2; exit 1; }
  grep '^BenchmarkBareRaft' "$out/floor.txt"
  floor_ms=$(awk '/^BenchmarkBareRaft/ { for (i = 1; i <= NF; i++) if ($(i+1) == "cpu-ns/sim-s") print $i / 1e6 }' "$out/floor.txt")
fi

rc=0
python3 - "$out/traces.txt" "$sim_seconds" "$root/scripts/subsystem-budgets.txt" "$floor_ms" "$("$root"/scripts/doc-rev.sh)" <<'EOF' || rc=$?
import re, sys

M = "github.com/felixsim/felixsim/"
RUNNER_CHECKS = ("check.go", "check_cluster.go", "check_groups.go", "check_linearizable.go", "inrun.go", "inrun_checker.go", "evidence.go", "vacuous.go")
STORE_CHECK = ("inrun_store.go", "inrun_store_books.go", "inrun_store_sides.go")
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
    if any(pkg(f, "sim/runner") and path.rsplit("/", 1)[-1].split(":")[0] in STORE_CHECK for f, path in frames):
        return "StoreMatchesMemory"
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
budgets = {}
for line in open(sys.argv[3]):
    f = line.split("#", 1)[0].split()
    if f:
        budgets[f[0]] = float(f[1])
all_ms = sum(totals.values())
sim = float(sys.argv[2]) if sys.argv[2] else 0
floor = float(sys.argv[4]) if sys.argv[4] else 0
judge = sim > 0 and floor > 0
over = []
print("%-18s %7s %10s%s" % ("subsystem", "share", "CPU ms", "  ms/sim-s  budget ms/sim-s (floors)" if judge else ("  ms/sim-s" if sim else "")))
for k in sorted(set(totals) | set(budgets), key=lambda k: -totals.get(k, 0)):
    v = totals.get(k, 0.0)
    line = "%-18s %6.1f%% %10.0f" % (k, 100 * v / all_ms, v)
    if sim:
        line += "  %9.2f" % (v / sim)
    if judge:
        b = budgets.get(k)
        if b is None:
            line += "  %9s         OVER (no budget)" % "-"
            over.append(k)
        else:
            line += "  %9.2f (%.2f)" % (b * floor, b)
            if v / sim > b * floor:
                line += "  OVER"
                over.append(k)
    print(line)
print("%-18s %6.1f%% %10.0f%s" % ("all", 100.0, all_ms, "  %9.2f  (%.1f simulated s)" % (all_ms / sim, sim) if sim else ""))
if judge:
    print("floor: %.2f ms of CPU per simulated s (etcd raft alone, bench/bareraft); all: %.2f floors against a budget of %.2f" % (floor, all_ms / sim / floor, sum(budgets.values())))
if sim:
    print("\ndocs/performance.md rows:")
    for k, v in sorted(totals.items(), key=lambda kv: -kv[1]):
        print("| %s | %.1f%% | %.1f | %s |" % (k, 100 * v / all_ms, v / sim, sys.argv[5]))
    print("| all (%.1f simulated s) | 100%% | %.1f | %s |" % (sim, all_ms / sim, sys.argv[5]))
if judge and over:
    print("over budget: " + ", ".join(over))
    sys.exit(1)
EOF
echo "profile: $prof (go tool pprof -top ${binary:+$binary }$prof for functions)"
exit $rc
