#!/usr/bin/env bash
# raft-gap.sh: how much of raft's cost inside felixsim, above the floor
# (etcd raft alone, bench/bareraft), the work faults add explains: the
# elections, vote requests, snapshots and appends sent again.
#
# For every seed S in SEEDS (default "1 2 3 4 5 6") it runs `felixsim run
# --seed S --json`, whose density.raft_* counts what the brokers' raft
# groups sent (node.RaftWork), and the bare harness at that run's density
# (BenchmarkBareRaft -bareraft.density, which counts the same), then the
# harness again with SCALE (default 1.3) times the proposals, for the
# floor's marginal CPU per entry sent. It prints, per simulated second,
# both sides' counts and an upper bound on the CPU the fault-added work
# costs at the floor's prices: each entry sent beyond the harness's at
# the marginal cost of a proposal's entry (which also pays its commit and
# apply, so this overstates a re-sent entry), each extra vote request and
# its answer at the harness's mean cost per message, each snapshot as a
# message. RAFT_MS=raft's ms per simulated second inside felixsim (the
# raft line of `make profile-subsystems BENCH_TIME=6x`, which runs seeds
# 1..6) adds the share of the gap above the floor that bound explains.
# Outputs stay in OUT (default a fresh temp dir).
set -euo pipefail

seeds=${SEEDS:-1 2 3 4 5 6}
scale=${SCALE:-1.3}
gogc=${GOGC:-400}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d /tmp/raft-gap.XXXXXX)}
mkdir -p "$out"
(cd "$root" && go build -o "$out/felixsim" ./cmd/felixsim && go test -c -o "$out/bareraft.test" ./bench/bareraft)

for s in $seeds; do
  GOGC=$gogc "$out/felixsim" run --seed "$s" --json > "$out/run-$s.json" || true
  python3 - "$out/run-$s.json" "$scale" "$out/scaled-$s.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["density"]["proposals_per_sim_second"] *= float(sys.argv[2])
json.dump(d, open(sys.argv[3], "w"))
EOF
  for side in run scaled; do
    GOGC=$gogc "$out/bareraft.test" -test.run '^$' -test.bench '^BenchmarkBareRaft$' -test.benchtime 1x -test.cpu 1 \
      -bareraft.density "$out/$side-$s.json" | grep '^BenchmarkBareRaft' > "$out/bare-$side-$s.txt"
  done
done

python3 - "$out" "$seeds" "${RAFT_MS:-}" <<'EOF'
import json, re, sys
out, seeds, raft_ms = sys.argv[1], sys.argv[2].split(), sys.argv[3]
def bare(path):
    line = open(path).read()
    return {u: float(v) for v, u in re.findall(r"([0-9.]+) (\S+/sim-s)", line)}
F = {k: 0.0 for k in ("messages", "appended_entries", "vote_requests", "snapshots", "elections", "heartbeats")}
B = {k: 0.0 for k in ("msgs/sim-s", "entries-sent/sim-s", "votes/sim-s", "elections/sim-s", "heartbeats/sim-s", "cpu-ns/sim-s")}
sim = bound = 0.0
print("seed  sim-s  |  messages     entries sent   vote requests  elections   snapshots  |  bound us/sim-s   (felixsim | floor per simulated s)")
for s in seeds:
    d = json.load(open("%s/run-%s.json" % (out, s)))["density"]
    t = d["sim_seconds"]
    r = {k[len("raft_"):]: v for k, v in d.items() if k.startswith("raft_")}
    b, b2 = bare("%s/bare-run-%s.txt" % (out, s)), bare("%s/bare-scaled-%s.txt" % (out, s))
    per_entry = (b2["cpu-ns/sim-s"] - b["cpu-ns/sim-s"]) / max(b2["entries-sent/sim-s"] - b["entries-sent/sim-s"], 1e-9)
    per_msg = b["cpu-ns/sim-s"] / b["msgs/sim-s"]
    extra = (max(r["appended_entries"] / t - b["entries-sent/sim-s"], 0) * per_entry
             + max(r["vote_requests"] / t - b["votes/sim-s"], 0) * 2 * per_msg + r["snapshots"] / t * per_msg)
    print("%-5s %5.1f  |  %5.0f %5.0f  %5.0f %5.0f    %5.1f %5.1f    %4.2f %4.2f   %4.2f %4.2f  |  %6.0f   (entry %.2f us, message %.2f us)" % (
        s, t, r["messages"] / t, b["msgs/sim-s"], r["appended_entries"] / t, b["entries-sent/sim-s"], r["vote_requests"] / t, b["votes/sim-s"],
        r["elections"] / t, b["elections/sim-s"], r["snapshots"] / t, 0.0, extra / 1e3, per_entry / 1e3, per_msg / 1e3))
    sim += t
    bound += extra * t
    for k in F:
        F[k] += r[k]
    for k in B:
        B[k] += b[k] * t
floor = B["cpu-ns/sim-s"] / sim / 1e6
print("all   %5.1f  |  %5.0f %5.0f  %5.0f %5.0f    %5.1f %5.1f    %4.2f %4.2f   %4.2f %4.2f  |  %6.0f" % (
    sim, F["messages"] / sim, B["msgs/sim-s"] / sim, F["appended_entries"] / sim, B["entries-sent/sim-s"] / sim, F["vote_requests"] / sim,
    B["votes/sim-s"] / sim, F["elections"] / sim, B["elections/sim-s"] / sim, F["snapshots"] / sim, 0.0, bound / sim / 1e3))
print("floor %.2f ms/sim-s; the fault-added work costs at most %.3f ms/sim-s at the floor's prices" % (floor, bound / sim / 1e6))
if raft_ms:
    gap = float(raft_ms) - floor
    print("raft inside felixsim %.2f ms/sim-s, %.2f above the floor: the fault-added work explains at most %.0f%% of it" % (float(raft_ms), gap, 100 * bound / sim / 1e6 / gap))
EOF
