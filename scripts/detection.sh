#!/usr/bin/env bash
# detection.sh SEEDS JOBS: seeds-to-detection of every planted defect over
# seeds 1..SEEDS (10 s runs, each defect under its catch plan in
# sim/runner's tests), JOBS test processes side by side, one summary line
# per defect. Each process's full log (every seed's verdict) is kept in
# $DETECTION_LOGS (default: a fresh temporary directory, printed).
set -euo pipefail
seeds=${1:?usage: detection.sh SEEDS JOBS}
jobs=${2:-2}
case $seeds in ''|*[!0-9]*|0) echo "detection.sh: SEEDS=$seeds refused: want a positive number of seeds" >&2; exit 2;; esac
case $jobs in ''|*[!0-9]*|0) echo "detection.sh: JOBS=$jobs refused: want a positive number of processes" >&2; exit 2;; esac
logs=${DETECTION_LOGS:-$(mktemp -d)}
mkdir -p "$logs"
go test -c -o "$logs/runner.test" ./sim/runner
pids=()
for i in $(seq 1 "$jobs"); do
	FELIXSIM_DETECTION_SEEDS=$seeds FELIXSIM_DETECTION_SHARD=$i/$jobs \
		"$logs/runner.test" -test.run '^TestDetectionSweep$' -test.v -test.timeout 6h >"$logs/shard-$i.log" 2>&1 &
	pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
grep -h -E ': (caught on [0-9]+ of|not caught on)' "$logs"/shard-*.log | sed 's/^ *checker_defects_test.go:[0-9]*: //' | sort
echo "logs: $logs"
if [ "$status" -ne 0 ]; then
	echo "detection.sh: a test process failed; see $logs/shard-*.log" >&2
	grep -h -E -- '--- FAIL|panic:' "$logs"/shard-*.log >&2 || true
fi
exit "$status"
