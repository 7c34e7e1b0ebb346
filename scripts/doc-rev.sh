#!/usr/bin/env bash
# doc-rev.sh: the revision a measurement is taken at, as a row of
# docs/performance.md names it: the short commit of HEAD, "+dirty" when the
# work tree differs from it, and today's date.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
if [ "$rev" != unknown ] && ! git diff --quiet HEAD 2>/dev/null; then rev="$rev+dirty"; fi
echo "$rev, $(date -u +%Y-%m-%d)"
