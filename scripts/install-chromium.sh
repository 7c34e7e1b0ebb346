#!/usr/bin/env bash
# Installs Debian's chromium when /usr/bin/chromium is missing; the
# timeline test (make timeline-test) drives it headless through chromedp.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
/usr/bin/chromium --version
