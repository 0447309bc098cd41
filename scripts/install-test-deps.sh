#!/usr/bin/env bash
# Installs the programs that neardup's tests drive: Debian's Chromium for the
# web page tests. Safe to run again; does nothing when they are present.
# Without root or apt, or when the package cannot be had after two tries, it
# says so and goes on: the browser tests then skip, naming the reason.
set -uo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-test-deps: chromium is missing; install Debian's chromium package (browser tests will be skipped)" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
for try in 1 2; do
	if apt-get update -qq && apt-get install -y -qq chromium >/dev/null; then
		exit 0
	fi
	echo "install-test-deps: installing chromium failed (try $try)" >&2
	sleep 5
done
echo "install-test-deps: chromium could not be installed; browser tests will be skipped" >&2
exit 0
