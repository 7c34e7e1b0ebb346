#!/usr/bin/env bash
# bench-floor.sh: felixsim's speed as a ratio to its floor, etcd raft
# alone at the same density (issue 27; docs/performance.md, "The floor").
#
# Builds felixsim (this working tree, with its uncommitted changes) and the
# bare raft harness's test binary (bench/bareraft), then for ROUNDS rounds
# (default 3) and every seed S in SEEDS (default "1 2 3 4 5 6"), interleaved
# so that the machine's load hits both alike:
#
#   felixsim run --seed S --json          (its "density": raft groups,
#                                          brokers, ticks and proposals per
#                                          simulated second, proposal size)
#   bareraft.test -test.bench BareRaft    (etcd raft alone at that density
#     -test.benchtime 1x                   for the run's simulated seconds,
#     -bareraft.density <that JSON>        every proposal applied on every
#                                          replica)
#
# which of the two goes first alternates per round. Each process's user+
# system CPU is its rusage (wait4, whole process: start-up included for
# both); both run with GOGC=400, felixsim's
# default (GOGC in the environment overrides it for both). The table gives,
# per seed and over all, CPU ms per simulated second of felixsim and of the
# bare harness and their ratio (felixsim / bare): the project's speed
# figure, lower is better.
#
# OLD=rev also builds felixsim at revision rev and runs it in the same
# interleaving, against the floor at its own density (a revision whose
# run --json has no density borrows this tree's for the same seed, marked
# in the table). Outputs stay in OUT (default a fresh temp dir): runs.tsv
# and each run's JSON.
set -euo pipefail

rounds=${ROUNDS:-3}
seeds=${SEEDS:-1 2 3 4 5 6}
old_rev=${OLD:-}
gogc=${GOGC:-400}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d /tmp/bench-floor.XXXXXX)}
mkdir -p "$out"
case $rounds in ''|*[!0-9]*|0) echo "bench-floor.sh: ROUNDS=$rounds refused: want a positive number" >&2; exit 2;; esac

(cd "$root" && go build -o "$out/felixsim-new" ./cmd/felixsim && go test -c -o "$out/bareraft.test" ./bench/bareraft)
sides="new"
if [ -n "$old_rev" ]; then
  rm -rf "$out/old-src" && mkdir -p "$out/old-src"
  git -C "$root" archive "$old_rev" | tar -x -C "$out/old-src"
  (cd "$out/old-src" && go build -o "$out/felixsim-old" ./cmd/felixsim)
  sides="new old"
fi
head=$(git -C "$root" rev-parse --short HEAD)
dirty=$(git -C "$root" status --porcelain --untracked-files=no | grep -q . && echo "+changes" || true)
echo "bench-floor: felixsim at $head$dirty${old_rev:+ and $old_rev}, seeds $seeds, $rounds round(s), GOGC=$gogc; out: $out"

# timed OUTFILE CMD...: run CMD with its stdout in OUTFILE and print the
# user+system CPU seconds it used (its rusage from wait4, to the
# microsecond; /usr/bin/time rounds to 10 ms). CMD's exit code is not
# judged here: the caller checks its output.
timed() {
  python3 - "$@" <<'PY'
import os, subprocess, sys
out = open(sys.argv[1], "wb")
p = subprocess.Popen(sys.argv[2:], stdout=out)
_, _, ru = os.wait4(p.pid, 0)
print("%.6f" % (ru.ru_utime + ru.ru_stime))
PY
}

# felix SIDE SEED ROUND: run felixsim, append its row to runs.tsv.
felix() {
  local side=$1 seed=$2 round=$3 json=$out/$1-seed$2-r$3.json
  local cpu
  cpu=$(GOGC=$gogc timed "$json" "$out/felixsim-$side" run --seed "$seed" --json)
  python3 - "$json" "$side" "$seed" "$round" "$cpu" >> "$out/runs.tsv" <<'EOF'
import json, sys
path, side, seed, rnd, cpu = sys.argv[1:]
d = json.load(open(path))
print("felixsim-" + side, seed, rnd, d["sim_seconds"], cpu, "density" in d, sep="\t")
EOF
}

# bare SIDE SEED ROUND: the harness at SIDE's density of SEED, read from
# round 1's run (a seed's run is the same every round; this tree's when
# SIDE's run printed none), append its row to runs.tsv.
bare() {
  local side=$1 seed=$2 round=$3 json=$out/$1-seed$2-r1.json
  if ! grep -q '"density"' "$json"; then
    json=$out/new-seed$2-r1.json
  fi
  local secs
  secs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["density"]["sim_seconds"])' "$json")
  local cpu
  cpu=$(GOGC=$gogc timed "$out/bare.txt" "$out/bareraft.test" -test.run '^$' -test.bench '^BenchmarkBareRaft$' \
    -test.benchtime 1x -bareraft.density "$json")
  grep -q '^PASS' "$out/bare.txt" || { cat "$out/bare.txt" >&2; echo "bench-floor.sh: the bare harness failed on seed $seed" >&2; exit 1; }
  printf 'bare-%s\t%s\t%s\t%s\t%s\tTrue\n' "$side" "$seed" "$round" "$secs" "$cpu" >> "$out/runs.tsv"
}

: > "$out/runs.tsv"
for r in $(seq 1 "$rounds"); do
  for s in $seeds; do
    for side in $sides; do
      # Round 1 runs felixsim first (the harness reads its density); the
      # order then alternates per round.
      if [ $((r % 2)) = 1 ]; then felix "$side" "$s" "$r"; bare "$side" "$s" "$r"
      else bare "$side" "$s" "$r"; felix "$side" "$s" "$r"; fi
    done
  done
  echo "round $r of $rounds done"
done

python3 - "$out/runs.tsv" "$sides" "$("$root"/scripts/doc-rev.sh)" "$rounds" "$seeds" "$old_rev" <<'EOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
sides = sys.argv[2].split()
# tot[(who, seed)] = [sim, cpu]; who is felixsim-SIDE or bare-SIDE.
tot, own_density = {}, {}
for who, seed, rnd, sim, cpu, dens in rows:
    t = tot.setdefault((who, seed), [0.0, 0.0])
    t[0] += float(sim); t[1] += float(cpu)
    if who.startswith("felixsim-"):
        own_density[who] = own_density.get(who, True) and dens == "True"
seeds = sorted({s for _, s in tot}, key=int)
rows = []
def ms(t): return 1000 * t[1] / t[0]
print("%-8s %-5s %9s %18s %16s %8s" % ("side", "seed", "sim s", "felixsim ms/sim-s", "bare ms/sim-s", "ratio"))
for side in sides:
    f_all, b_all = [0.0, 0.0], [0.0, 0.0]
    for s in seeds:
        f, b = tot[("felixsim-" + side, s)], tot[("bare-" + side, s)]
        for a, x in ((f_all, f), (b_all, b)):
            a[0] += x[0]; a[1] += x[1]
        print("%-8s %-5s %9.1f %18.2f %16.2f %7.2fx" % (side, s, f[0], ms(f), ms(b), ms(f) / ms(b)))
    note = "" if own_density["felixsim-" + side] else "  (bare at this tree's density: the revision prints none)"
    print("%-8s %-5s %9.1f %18.2f %16.2f %7.2fx%s" % (side, "all", f_all[0], ms(f_all), ms(b_all), ms(f_all) / ms(b_all), note))
    rows.append((side, f_all, b_all))
print("\ndocs/performance.md rows (the revision of each side; %s rounds x seeds %s):" % (sys.argv[4], sys.argv[5]))
for side, f, b in rows:
    rev = sys.argv[3] if side == "new" else sys.argv[6] + ", " + sys.argv[3].split(", ")[1]
    print("| %s (%.0f simulated s) | %.1f | %.2f | %.2fx |" % (rev, f[0], ms(f), ms(b), ms(f) / ms(b)))
EOF
echo "ratio = felixsim CPU / bare etcd raft CPU per simulated second (user+system rusage of each process); command: ${OLD:+OLD=$OLD }ROUNDS=$rounds SEEDS=\"$seeds\" make bench-floor"
