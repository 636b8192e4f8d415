#!/usr/bin/env bash
# The drydb demo on real data: the Unicode Character Database (shipped in
# demo/data, from Unicode's UnicodeData.txt). Builds a database of every
# assigned code point -> name, with secondary indexes by category and by
# name, then queries it from the CLI, C, Python and C# (when Mono is here).
# Run by `make demo` after the library and CLI are built.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build
OUT=$B/demo
mkdir -p "$OUT"
DRYDB=$B/drydb

echo "== preparing data: demo/data/UnicodeData.txt.gz -> $OUT/unicode.tsv"
python3 demo/unicode_tsv.py demo/data/UnicodeData.txt.gz "$OUT/unicode.tsv"

echo "== building $OUT/unicode.drydb with the CLI (zstd pages with a trained dictionary)"
"$DRYDB" build "$OUT/unicode.drydb" --format tsv --key cp -e int64 --value name --value-format raw \
  --index by_category=category --index by_name=name -c zstd --dict unicode="$OUT/unicode.tsv"

echo "== CLI"
"$DRYDB" info "$OUT/unicode.drydb"
"$DRYDB" get "$OUT/unicode.drydb" 65 945 128512
"$DRYDB" count "$OUT/unicode.drydb" 0 127
"$DRYDB" get --index by_category "$OUT/unicode.drydb" Sc --limit 5 2>/dev/null || "$DRYDB" get --index by_category "$OUT/unicode.drydb" Sc | head -5
"$DRYDB" prefix --index by_name "$OUT/unicode.drydb" "SNOWMAN" || true
"$DRYDB" verify "$OUT/unicode.drydb"

echo "== C (demo/demo.c against include/drydb.h and libdrydb.so)"
cc -O2 -Iinclude demo/demo.c -L$B -ldrydb -Wl,-rpath,"$PWD/$B" -o "$OUT/demo_c"
"$OUT/demo_c" "$OUT/unicode.drydb"

echo "== Python (bindings/python)"
if [ -f bindings/python/drydb/__init__.py ]; then
  DRYDB_LIBRARY="$PWD/$B/libdrydb.so" PYTHONPATH=bindings/python python3 demo/demo.py "$OUT/unicode.drydb"
else
  echo "(Python binding not present)"
fi

echo "== C# (bindings/csharp, under Mono)"
if command -v mcs >/dev/null && command -v mono >/dev/null && [ -f bindings/csharp/Makefile ]; then
  make -s -C bindings/csharp >/dev/null
  cp bindings/csharp/out/DryDB.dll bindings/csharp/out/DryDB.dll.config "$OUT/"
  mcs -nologo -r:"$OUT/DryDB.dll" -out:"$OUT/Demo.exe" demo/Demo.cs
  cp -L "$B/libdrydb.so" "$OUT/libdrydb.so"
  (cd "$OUT" && mono Demo.exe unicode.drydb)
else
  echo "(Mono not installed: apt-get install mono-mcs mono-runtime to run the C# part)"
fi
echo "== demo done"
