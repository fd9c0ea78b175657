#!/bin/sh
# fetch-zlib.sh - lays out the one benchmark not written here: zlib's
# deflate (its examples/zpipe.c driver) from Debian's binutils-source
# package, which ships the binutils tarball with zlib inside.
#
#   fetch-zlib.sh DIR
#
# Uses /usr/src/binutils/binutils-*.tar.* when the package is installed,
# else downloads the .deb with `apt-get download` (no root needed) into
# DIR.  Leaves DIR/zlib/ (sources) and DIR/zlib.in (the input: 25 MB of
# binutils' own C sources, the same bytes every time).  Exits 1 with a
# message when neither way works; the harness then skips the benchmark.
set -eu

dir=$1
mkdir -p "$dir"
cd "$dir"
[ -f zlib/examples/zpipe.c ] && [ -s zlib.in ] && exit 0

tarball=$(ls /usr/src/binutils/binutils-*.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
	if ! ls binutils-source_*.deb >/dev/null 2>&1; then
		apt-get download binutils-source >/dev/null 2>&1 || {
			echo "fetch-zlib: cannot get binutils-source" \
			     "(apt-get download failed)" >&2
			exit 1
		}
	fi
	rm -rf deb && mkdir deb
	dpkg-deb -x binutils-source_*.deb deb
	tarball=$(ls deb/usr/src/binutils/binutils-*.tar.* | head -n 1)
fi
top=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
rm -rf "$top" zlib
tar xf "$tarball" "$top/zlib" "$top/bfd"
mv "$top/zlib" zlib
# input: binutils' bfd sources in name order, cut to 25 MB
find "$top/bfd" -name '*.c' | LC_ALL=C sort | xargs cat 2>/dev/null | head -c 25000000 > zlib.in.tmp
mv zlib.in.tmp zlib.in
rm -rf "$top" deb
