#!/usr/bin/env bash
# detection.sh SEEDS JOBS: seeds-to-detection of every planted defect over
# seeds 1..SEEDS (10 s runs, each defect under its catch plan in
# sim/runner's tests), JOBS test processes side by side, one summary line
# per defect, then the CPU seconds to a catch of each (median and max over
# start seeds, and from seed 1), flagging a median above 2 s. Each process's full log (every seed's verdict) is kept in
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
grep -h -E ': (caught on [0-9]+ of|not caught on)' "$logs"/shard-*.log | sed 's/^ *checker_defects_test.go:[0-9]*: //' | sort > "$logs/summary.txt"
cat "$logs/summary.txt"
# CPU to a catch: from each start seed, the CPU (rusage of the test
# process around each run) of the seeds up to and including the next
# catching one; median and max over the starts, as seeds-to-detection.
echo "CPU seconds to a catch (median over start seeds; issue 27 asks for 2 s at most):"
sed -n -E 's/^([^ ]+) .*CPU to a catch median ([0-9.]+) s, max ([0-9.]+) s, from seed 1 ([0-9.]+) s( \[CPU MEDIAN ABOVE [0-9]+ s\])?$/\1 \2 \3 \4\5/p' "$logs/summary.txt" |
	awk '{ flag = ($5 != "") ? "  ABOVE 2 s" : ""; printf "  %-28s median %6.2f  max %6.2f  from seed 1 %6.2f%s\n", $1, $2, $3, $4, flag }'
echo "logs: $logs"
if [ "$status" -ne 0 ]; then
	echo "detection.sh: a test process failed; see $logs/shard-*.log" >&2
	grep -h -E -- '--- FAIL|panic:' "$logs"/shard-*.log >&2 || true
fi
exit "$status"
