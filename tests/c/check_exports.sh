#!/bin/sh
# The functions declared in include/drydb.h are exactly the drydb_ functions
# libdrydb.so exports (static inline key helpers and drydb__ internals
# excluded), the bindings' drydb__ functions exactly those declared in the
# private headers capi/drydb_bindings.h and capi/drydb_columnar.h, nothing
# else is exported (capi/exports.map keeps cgo's _cgo_* glue and the Go
# runtime inside), and the cgo-generated header is not next to the library.
# A Windows DLL's exports are read from its export table (objdump -p); NM
# and OBJDUMP name the target's tools when cross-building.
set -eu
lib=$1
header=$2
NM=${NM:-nm}
OBJDUMP=${OBJDUMP:-objdump}
tmp=${TMPDIR:-/tmp}/drydb-exports.$$
trap 'rm -f "$tmp".*' EXIT
pe=no
[ "$(head -c 2 "$lib")" = MZ ] && pe=yes
if [ $pe = yes ]; then
    "$OBJDUMP" -p "$lib" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' | sed 1d | awk 'NF {print $NF}' > "$tmp.all"
else
    "$NM" -D --defined-only "$lib" | awk '{print $3}' > "$tmp.all"
fi
grep '^drydb_' "$tmp.all" | grep -v '^drydb__' | sort -u > "$tmp.lib"
# declarations: "DRYDB_API <type> <name>(" possibly with a pointer star
grep -E '^DRYDB_API' "$header" | sed -E 's/\(.*//; s/.*[ *]//' | sort -u > "$tmp.hdr"
if ! diff -u "$tmp.hdr" "$tmp.lib"; then
    echo "header (-) and exports (+) differ" >&2
    exit 1
fi
capi=$(dirname "$0")/../../capi
grep '^drydb__' "$tmp.all" | grep -v '_go$' | sort -u > "$tmp.blib"
cat "$capi"/drydb_bindings.h "$capi"/drydb_columnar.h | grep -oE 'drydb__[a-z0-9_]+\(' | tr -d '(' | sort -u > "$tmp.bhdr"
if ! diff -u "$tmp.bhdr" "$tmp.blib"; then
    echo "capi's private headers (-) and the drydb__ exports (+) differ" >&2
    exit 1
fi
others=$(grep -v '^drydb_' "$tmp.all" || true)
if [ -n "$others" ]; then
    echo "libdrydb.so exports symbols outside drydb_*:" $others >&2
    exit 1
fi
# A DLL exports every cgo //export function (no version script for PE):
# there the fallbacks stay visible, under their internal drydb__ names.
internal=$(grep '^drydb__.*_go$' "$tmp.all" || true)
if [ $pe = no ] && [ -n "$internal" ]; then
    echo "libdrydb.so exports fast.c's fallbacks into Go (capi/exports.map hides them):" $internal >&2
    exit 1
fi
n=$(wc -l < "$tmp.hdr")
[ "$n" -gt 40 ] || { echo "only $n functions found: parsing broke" >&2; exit 1; }
if [ -e "$(dirname "$lib")/libdrydb.h" ]; then
    echo "the cgo-generated header $(dirname "$lib")/libdrydb.h must not be shipped" >&2
    exit 1
fi
echo "exports: $n functions match the header, $(wc -l < "$tmp.bhdr") the bindings' headers"
