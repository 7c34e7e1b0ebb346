#!/usr/bin/env bash
# Runs every Fuzz* target in the module for the given time each (default 30s).
set -euo pipefail
fuzztime="${1:-30s}"
cd "$(dirname "$0")/.."
found=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for name in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    found=1
    echo "== $pkg $name ($fuzztime)"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s -parallel 1 "$pkg"
  done
done
if [ "$found" = 0 ]; then echo "fuzz: no Fuzz targets found"; fi
