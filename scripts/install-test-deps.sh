#!/usr/bin/env bash
# Installs the programs that neardup's tests drive: Debian's Chromium for the
# web page tests. Safe to run again; does nothing when they are present.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-test-deps: chromium is missing; install Debian's chromium package (browser tests will be skipped)" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
