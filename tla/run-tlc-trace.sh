#!/usr/bin/env bash
# usage: tla/run-tlc-trace.sh TRACE.ndjson [GROUP] [NODES]
# Validates one raft group's abstract trace (felixsim run --trace-out) twice:
# with the Go mirror (felixsim check-trace) and with TLC on the module
# check-trace generates (TraceFelixAtomicCommit.tla, the trace as a
# constant), then compares the verdicts: both valid, or both rejecting the
# same step for the same reason (a step no action takes, TraceNotInModel:
# TLC's deadlock; or a state breaking one of the model's invariants: TLC's
# invariant violation, named).  GROUP defaults to the group of the first step the Go mirror
# refuses, else the lowest.  Needs TLA2TOOLS_JAR and java; without them it
# says so, runs nothing and exits 3 (no verdict; nothing in make test or CI
# needs TLC). Exit status: 0 when TLC and the mirror agree, 1 when they
# disagree or TLC failed, 2 on a usage error, 3 when TLC could not run.
set -uo pipefail
trace="${1:-}" group="${2:-}" nodes="${3:-}"
if [ -z "$trace" ] || [ ! -f "$trace" ]; then
  echo "usage: make tlc-trace TRACE=FILE [GROUP=g] [NODES=n, only for a trace without a header]   (FILE from: felixsim run --seed N --duration 2s --trace-out FILE)" >&2
  exit 2
fi
if [ -z "${TLA2TOOLS_JAR:-}" ] || [ ! -f "${TLA2TOOLS_JAR}" ]; then
  cat <<'MSG'
make tlc-trace: TLC was NOT run (TLA2TOOLS_JAR is not set to an existing file).
To run it: TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc-trace TRACE=FILE
(tla2tools.jar 2.18 or later, kept outside the repository; Java 11 or later).
The Go mirror alone: go run ./cmd/felixsim check-trace --group G FILE
MSG
  exit 3
fi
if ! command -v java >/dev/null 2>&1; then
  echo "make tlc-trace: TLC was NOT run: no java on PATH."
  exit 3
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/felixsim-tlc-trace.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/felixsim" ./cmd/felixsim) || exit 1
args=(--tla-module "$work")
[ -n "$nodes" ] && args+=(--nodes "$nodes")
[ -n "$group" ] && args+=(--group "$group")
gojson="$("$work/felixsim" check-trace "${args[@]}" "$trace")"
gocode=$?
if [ $gocode -ne 0 ] && [ $gocode -ne 1 ]; then echo "check-trace gave no verdict (exit $gocode): $gojson"; exit 1; fi
echo "Go mirror: $gojson"
cp "$root/tla/TraceFelixAtomicCommit.tla" "$work/"
(cd "$work" && java -XX:+UseParallelGC -cp "$TLA2TOOLS_JAR" tlc2.TLC -workers 1 \
  -metadir "$work/meta" -config MCTraceFelixAtomicCommit.cfg MCTraceFelixAtomicCommit.tla >"$work/tlc.out" 2>&1)
grep -E '^TLC2 Version|states generated|^Error:|^Finished in' "$work/tlc.out" | sed 's/^/TLC: /'
mirror="$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); r=d.get("rejection") or {}; print("valid" if d["valid"] else "rejected at step %d (%s)" % (d["steps"], r.get("invariant") or "TraceNotInModel"))' "$gojson")"
# The last state of TLC's error trace holds i: for a deadlock, the step no
# action took; for an invariant, the step after the one whose state broke it.
last_i() { grep -E '^/\\ i = [0-9]+' "$work/tlc.out" | tail -1 | sed -E 's/^.* = //'; }
if grep -q '^Model checking completed. No error has been found.' "$work/tlc.out"; then
  tlc="valid"
elif grep -q '^Error: Deadlock reached.' "$work/tlc.out"; then
  tlc="rejected at step $(last_i) (TraceNotInModel)"
elif grep -qE '^Error: Invariant [A-Za-z]+ is violated' "$work/tlc.out"; then
  inv="$(grep -E '^Error: Invariant [A-Za-z]+ is violated' "$work/tlc.out" | head -1 | sed -E 's/^Error: Invariant ([A-Za-z]+) is violated.*/\1/')"
  tlc="rejected at step $(( $(last_i) - 1 )) ($inv)"
else
  echo "TLC stopped with neither verdict:"; tail -20 "$work/tlc.out"; exit 1
fi
echo "TLC: $tlc; Go mirror: $mirror"
[ "$tlc" = "$mirror" ] || { echo "DISAGREE"; exit 1; }
echo "agree"
