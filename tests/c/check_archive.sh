#!/bin/sh
# libdrydb.a defines the same global symbols as libdrydb.so exports, and no
# other (scripts/localize-archive: cgo's glue and the Go runtime's entry
# points are local, so they cannot clash with a program's own). Skipped
# (exit 77) where nm cannot list the archive (no GNU binutils).
set -eu
lib=$1
archive=$2
NM=${NM:-nm}
command -v "$NM" >/dev/null || exit 77
tmp=${TMPDIR:-/tmp}/drydb-archive.$$
trap 'rm -f "$tmp".*' EXIT
# An arm64 archive is left as built (scripts/localize-archive says why).
if ar t "$archive" | grep -qx go.o && ar p "$archive" go.o > "$tmp.o" &&
   readelf -h "$tmp.o" | grep -q 'Machine:.*AArch64'; then
  echo "libdrydb.a (arm64) is not localized: see scripts/localize-archive"
  exit 77
fi
"$NM" -D --defined-only "$lib" | awk 'NF==3 {print $3}' | sort -u > "$tmp.so"
"$NM" -g --defined-only "$archive" 2>/dev/null | awk 'NF==3 {print $3}' | sort -u > "$tmp.a"
if ! diff -u "$tmp.so" "$tmp.a"; then
  echo "libdrydb.so's exports (-) and libdrydb.a's globals (+) differ" >&2
  exit 1
fi
echo "libdrydb.a: $(wc -l < "$tmp.a") global symbols, the same as libdrydb.so exports"
