#!/bin/sh
# The functions declared in include/drydb.h are exactly the drydb_ functions
# libdrydb.so exports (static inline key helpers and drydb__ internals
# excluded), the bindings' drydb__ functions exactly those declared in
# capi/drydb_bindings.h, nothing else is exported (capi/exports.map keeps
# cgo's _cgo_* glue and the Go runtime inside), and the cgo-generated header
# is not next to the library.
set -eu
lib=$1
header=$2
tmp=${TMPDIR:-/tmp}/drydb-exports.$$
trap 'rm -f "$tmp".*' EXIT
nm -D --defined-only "$lib" | awk '{print $3}' | grep '^drydb_' | grep -v '^drydb__' | sort -u > "$tmp.lib"
# declarations: "DRYDB_API <type> <name>(" possibly with a pointer star
grep -E '^DRYDB_API' "$header" | sed -E 's/\(.*//; s/.*[ *]//' | sort -u > "$tmp.hdr"
if ! diff -u "$tmp.hdr" "$tmp.lib"; then
    echo "header (-) and exports (+) differ" >&2
    exit 1
fi
bindings=$(dirname "$0")/../../capi/drydb_bindings.h
nm -D --defined-only "$lib" | awk '{print $3}' | grep '^drydb__' | sort -u > "$tmp.blib"
grep -oE 'drydb__[a-z0-9_]+\(' "$bindings" | tr -d '(' | sort -u > "$tmp.bhdr"
if ! diff -u "$tmp.bhdr" "$tmp.blib"; then
    echo "capi/drydb_bindings.h (-) and the drydb__ exports (+) differ" >&2
    exit 1
fi
others=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^drydb_' || true)
if [ -n "$others" ]; then
    echo "libdrydb.so exports symbols outside drydb_*:" $others >&2
    exit 1
fi
internal=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep '^drydb__.*_go$' || true)
if [ -n "$internal" ]; then
    echo "libdrydb.so exports fast.c's fallbacks into Go (capi/exports.map hides them):" $internal >&2
    exit 1
fi
n=$(wc -l < "$tmp.hdr")
[ "$n" -gt 40 ] || { echo "only $n functions found: parsing broke" >&2; exit 1; }
if [ -e "$(dirname "$lib")/libdrydb.h" ]; then
    echo "the cgo-generated header $(dirname "$lib")/libdrydb.h must not be shipped" >&2
    exit 1
fi
echo "exports: $n functions match the header, $(wc -l < "$tmp.bhdr") the bindings' header"
