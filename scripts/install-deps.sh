#!/bin/sh
# Install what pap needs to build and test on Debian 12, by package name.
# Idempotent: when everything is present it prints nothing and exits 0.
# Run as root (or with sudo available).
set -eu

gcc_major=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
[ -n "$gcc_major" ] || gcc_major=12

packages="gcc g++ make autoconf automake libtool pkg-config \
gcc-${gcc_major}-plugin-dev libcmocka-dev csmith libcsmith-dev \
gnuplot-nox valgrind graphviz chromium clang libclang-rt-14-dev time \
binutils-source xz-utils cmake libreadline-dev lcov gcovr python3 \
python3-jsonschema"

missing=""
for p in $packages; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
