#!/usr/bin/env bash
# bench-compare.sh OLD [NEW]: build felixsim (and the sim/runner test
# binary) at revision OLD and at NEW (default: this working tree, with its
# uncommitted changes), then compare them side by side, interleaved, so that
# the machine's load hits both alike:
#
#  1. ROUNDS rounds (default 3) of `felixsim run --seed S --json` for every
#     seed S in SEEDS (default "1 2 3 4 5 6"), old and new alternated per
#     seed (which goes first alternates per round); it sums simulated
#     seconds, wall seconds (the JSON's wall_seconds), user+system CPU
#     (/usr/bin/time), client operations and events per binary and prints
#     sim-s/wall-s, sim-s/cpu-s, ops/sim-s and events/sim-s with the
#     new/old ratios.
#  2. unless BENCH_COUNT=0, BENCH_COUNT (default 3) interleaved runs of each
#     binary's BenchmarkDefaultRun (-cpu 1 -benchtime BENCH_TIME, default
#     2x) and benchstat over them (golang.org/x/perf/cmd/benchstat, pinned
#     below, run through `go run` from the module proxy).
#
# Absolute numbers depend on the machine's load; only the ratios measured
# here, in one session, mean anything. Outputs stay in OUT (default a
# fresh temp dir): runs.tsv, old.bench, new.bench.
set -euo pipefail

BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

old_rev=${1:?usage: bench-compare.sh OLD_REV [NEW_REV]}
new_rev=${2:-}
rounds=${ROUNDS:-3}
seeds=${SEEDS:-1 2 3 4 5 6}
bench_count=${BENCH_COUNT:-3}
bench_time=${BENCH_TIME:-2x}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d /tmp/bench-compare.XXXXXX)}
mkdir -p "$out"

# tree REV DIR: REV's files in DIR (the working tree itself for "").
tree() {
  if [ -z "$1" ]; then
    echo "$root"
    return
  fi
  rm -rf "$2" && mkdir -p "$2"
  git -C "$root" archive "$1" | tar -x -C "$2"
  echo "$2"
}

old_dir=$(tree "$old_rev" "$out/old-src")
new_dir=$(tree "$new_rev" "$out/new-src")
echo "old: $old_rev ($(git -C "$root" rev-parse --short "$old_rev"))  new: ${new_rev:-working tree}  out: $out"
for side in old new; do
  dir=${side}_dir
  (cd "${!dir}" && go build -o "$out/felixsim-$side" ./cmd/felixsim)
  if [ "$bench_count" != 0 ]; then
    (cd "${!dir}" && go test -c -o "$out/runner-$side.test" ./sim/runner)
  fi
done

# one SIDE SEED: run a seed, append "side seed sim wall cpu ops events" to runs.tsv.
one() {
  local side=$1 seed=$2 json cpu
  json=$(/usr/bin/time -f '%U %S' -o "$out/time.txt" "$out/felixsim-$side" run --seed "$seed" --json) || true
  cpu=$(awk '{print $1 + $2}' "$out/time.txt" | tail -1)
  python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(sys.argv[2], d["seed"], d["sim_seconds"], d["wall_seconds"], sys.argv[3], d["ops"]["total"], d["events"], sep="\t")
' "$json" "$side" "$cpu" >> "$out/runs.tsv"
}

: > "$out/runs.tsv"
for r in $(seq 1 "$rounds"); do
  for s in $seeds; do
    if [ $((r % 2)) = 1 ]; then one old "$s"; one new "$s"; else one new "$s"; one old "$s"; fi
  done
  echo "round $r of $rounds done"
done

python3 - "$out/runs.tsv" <<'EOF'
import sys
tot = {}
for line in open(sys.argv[1]):
    side, seed, sim, wall, cpu, ops, ev = line.split("\t")
    t = tot.setdefault(side, [0.0] * 5)
    for i, v in enumerate((sim, wall, cpu, ops, ev)):
        t[i] += float(v)
rows = []
for side in ("old", "new"):
    sim, wall, cpu, ops, ev = tot[side]
    rows.append((side, sim, wall, cpu, sim / wall, sim / cpu, ops / sim, ev / sim))
print("%-5s %10s %10s %10s %12s %12s %10s %12s" % ("", "sim s", "wall s", "cpu s", "sim-s/wall-s", "sim-s/cpu-s", "ops/sim-s", "events/sim-s"))
for r in rows:
    print("%-5s %10.1f %10.2f %10.2f %12.1f %12.1f %10.1f %12.1f" % r)
o, n = rows
print("new/old %38s %12.2fx %11.2fx %9.3fx %11.3fx" % ("", n[4] / o[4], n[5] / o[5], n[6] / o[6], n[7] / o[7]))
EOF

if [ "$bench_count" != 0 ]; then
  : > "$out/old.bench"
  : > "$out/new.bench"
  for i in $(seq 1 "$bench_count"); do
    for side in old new; do
      (cd "$out" && "./runner-$side.test" -test.run '^$' -test.bench '^BenchmarkDefaultRun$' \
        -test.benchtime "$bench_time" -test.cpu 1 -test.benchmem >> "$out/$side.bench")
    done
  done
  # benchstat runs outside the module so that its version is the pinned one.
  (cd "$out" && go run "$BENCHSTAT" old.bench new.bench) ||
    echo "benchstat could not run (no module proxy?); the raw results are $out/old.bench and $out/new.bench"
fi
