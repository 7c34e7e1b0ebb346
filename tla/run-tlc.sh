#!/usr/bin/env bash
# Runs TLC on every FelixAtomicCommit config, one worker each, and prints
# TLC's summary lines (TLC_LONG=1 adds the long config).  Needs a tla2tools.jar named by TLA2TOOLS_JAR and a
# Java runtime; without them it says so, runs nothing and exits 3 (no verdict, as
# felixsim's commands: a TLC that did not run passed nothing); nothing in
# `make test` or CI needs TLC (the Go mirror in package tla runs there
# instead).  Exit status: 0 when every config gave its expected verdict,
# 1 otherwise, 3 when TLC could not run.
set -uo pipefail
cd "$(dirname "$0")"

if [ -z "${TLA2TOOLS_JAR:-}" ] || [ ! -f "${TLA2TOOLS_JAR}" ]; then
  cat <<'MSG'
make tlc: TLC was NOT run (TLA2TOOLS_JAR is not set to an existing file).
To run it: get tla2tools.jar (TLA+ tools, version 2.18 or later, from the
TLA+ project's releases), keep it outside the repository, then
    TLA2TOOLS_JAR=/path/to/tla2tools.jar make tlc
Java 11 or later is needed.  The Go mirror checks the same model without
Java: go run ./cmd/felixsim check-model
MSG
  exit 3
fi
if ! command -v java >/dev/null 2>&1; then
  echo "make tlc: TLC was NOT run: no java on PATH (TLA2TOOLS_JAR=${TLA2TOOLS_JAR})."
  exit 3
fi

# config name, expected verdict: "ok" (no error) or the invariant TLC must report,
# and the module it checks (default MCFelixAtomicCommit).
configs=(
  "MCFelixAtomicCommit ok"
  "MCSplitRecords NoPartialCommit"
  "MCPartialApply NoPartialCommit"
  "MCSplitRecordsFull ok"
  "MCPartialApplyFull ok"
  "MCDefectCommitWithoutQuorum CommittedNeverLost"
  "MCDefectElectStale CommittedNeverLost"
  "MCDefectConditionAtProposal ConditionalWrites"
  "MCReconfigure ok MCReconfigure"
)
# The long configs (1.2 and 3.3 million states) only on request.
if [ "${TLC_LONG:-0}" = 1 ]; then
  configs+=("MCFelixAtomicCommitTerm3 ok" "MCBrokerShape ok")
else
  echo "(MCFelixAtomicCommitTerm3 and MCBrokerShape, the long configs, are skipped: set TLC_LONG=1 to run them too)"
fi
metaroot="$(mktemp -d "${TMPDIR:-/tmp}/felixsim-tlc.XXXXXX")"
trap 'rm -rf "$metaroot"' EXIT
status=0
for entry in "${configs[@]}"; do
  set -- $entry
  cfg="$1" want="$2" module="${3:-MCFelixAtomicCommit}"
  out="$metaroot/$cfg.out"
  echo "== $cfg (expect: $want)"
  java -XX:+UseParallelGC -cp "$TLA2TOOLS_JAR" tlc2.TLC -workers 1 -deadlock \
    -metadir "$metaroot/$cfg" -config "$cfg.cfg" "$module.tla" >"$out" 2>&1
  grep -E '^TLC2 Version|states generated|depth of the complete|^Error: Invariant|^Finished in|^[0-9]+: <' "$out" \
    | sed -E 's/^([0-9]+: <[A-Za-z]+).*/\1 .../'
  if [ "$want" = ok ]; then
    grep -q '^Model checking completed. No error has been found.' "$out" || { echo "   UNEXPECTED: expected no error"; status=1; }
  else
    grep -q "^Error: Invariant $want is violated" "$out" || { echo "   UNEXPECTED: expected $want to be violated"; status=1; }
  fi
done
exit $status
