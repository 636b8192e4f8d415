#!/usr/bin/env bash
# Hostile files through every reader: the Go API, the C library and the CLI.
#
#   tests/hostile/run.sh [N] [BASE]
#
# Generates N fuzzed files (random source BASE, default 1) and the named
# cases of engine/internal/hostile into a temporary directory, then reads
# each with
#   go   engine/internal/hostile/cmd/hostile read FILE  (every Go read call)
#   c    hostile_reader --one FILE                     (every drydb_* read call)
#   cli  build/drydb info, tables, stat, verify, dump, and per table scan,
#        keys, count, get, range, export, index scan and count
# each under `timeout` (HOSTILE_TIMEOUT s, default 20) and an address-space
# limit (prlimit --as, HOSTILE_RLIMIT_AS bytes, default 2 GiB). A run
# passes when it exits cleanly: 0, or 1 with an error message (2 for a CLI
# usage error, a key that does not parse), and no Go panic or fatal error on
# stderr. It fails on a signal, a timeout, running out of memory, a panic,
# a Go fatal error, or (go, c) a read that answered wrongly (a panic out of
# the API, an error that is not "corrupt", a pointer outside the file).
# Prints every failure and "N passed, N failed" (file x reader), and keeps
# the directory (HOSTILE_KEEP=1 keeps it also when everything passed).
set -uo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100}
BASE=${2:-1}
TIMEOUT=${HOSTILE_TIMEOUT:-20}
AS=${HOSTILE_RLIMIT_AS:-$((2 << 30))}

make -s lib cli >/dev/null || exit 1
work=$(mktemp -d /tmp/drydb-hostile-XXXXXX)
go build -o "$work/hostile" ./engine/internal/hostile/cmd/hostile || exit 1
${CC:-cc} -O1 -g -Wall -Iinclude tests/c/hostile_reader.c -o "$work/hostile_reader" \
  -Lbuild -ldrydb -Wl,-rpath,"$PWD/build" || exit 1
corpus="$work/corpus"
"$work/hostile" gen -n "$N" -base "$BASE" -cases "$corpus" || exit 1
drydb="$PWD/build/drydb"

passed=0
failed=0
# check READER FILE CMD...: runs CMD under the limits and judges it.
check() {
  local reader=$1 file=$2
  shift 2
  local out rc
  out=$(prlimit --as="$AS" -- timeout -s KILL "$TIMEOUT" "$@" 2>&1 >/dev/null </dev/null)
  rc=$?
  local why=""
  if [ $rc -eq 137 ] || [ $rc -eq 124 ]; then
    why="hang or killed (timeout ${TIMEOUT}s)"
  elif [ $rc -gt 128 ]; then
    why="signal $((rc - 128))"
  elif grep -qE '^(panic: |fatal error: |unexpected fault address|runtime: out of memory)' <<<"$out"; then
    why=$(grep -m1 -E '^(panic: |fatal error: |unexpected fault address|runtime: out of memory)' <<<"$out")
  elif [ "$reader" != cli ] && [ $rc -ne 0 ]; then
    why="exit $rc"
  elif [ "$reader" = cli ] && [ $rc -gt 2 ]; then
    why="exit $rc"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $reader $(basename "$file"): $*: $why"
    [ "$reader" = cli ] || prlimit --as="$AS" -- timeout -s KILL "$TIMEOUT" "$@" 2>/dev/null | grep -m3 '^FAIL' | sed 's/^/    /'
    return 1
  fi
  return 0
}

cli() {
  local f=$1 ok=0
  for c in info tables stat verify dump; do
    check cli "$f" "$drydb" "$c" "$f" || ok=1
  done
  local t k keys
  for t in $(awk -F'\t' '$1 == "table" {print $2}' "$f.cli" | sort -u); do
    mapfile -t keys < <(awk -F'\t' -v t="$t" '$1 == "table" && $2 == t && $3 != "" {print $3}' "$f.cli")
    check cli "$f" "$drydb" scan -t "$t" --limit 300 "$f" || ok=1
    check cli "$f" "$drydb" keys -t "$t" -r --limit 300 "$f" || ok=1
    check cli "$f" "$drydb" count -t "$t" "$f" || ok=1
    check cli "$f" "$drydb" export -t "$t" "$f" || ok=1
    if [ ${#keys[@]} -gt 0 ]; then
      check cli "$f" "$drydb" get -t "$t" "$f" -- "${keys[@]}" || ok=1
      check cli "$f" "$drydb" range -t "$t" --limit 100 "$f" -- "${keys[0]}" "${keys[-1]}" || ok=1
      check cli "$f" "$drydb" count -t "$t" "$f" -- "${keys[0]}" "${keys[-1]}" || ok=1
    fi
  done
  local line
  while IFS=$'\t' read -r kind t k; do
    [ "$kind" = index ] || continue
    check cli "$f" "$drydb" scan -t "$t" --index "$k" --limit 300 "$f" || ok=1
    check cli "$f" "$drydb" count -t "$t" --index "$k" "$f" || ok=1
  done <"$f.cli"
  return $ok
}

start=$(date +%s)
for f in "$corpus"/*.drydb; do
  check go "$f" "$work/hostile" read "$f" && passed=$((passed + 1)) || failed=$((failed + 1))
  check c "$f" "$work/hostile_reader" --one "$f" && passed=$((passed + 1)) || failed=$((failed + 1))
  cli "$f" && passed=$((passed + 1)) || failed=$((failed + 1))
done
echo "files: $(ls "$corpus"/*.drydb | wc -l) in $corpus ($(($(date +%s) - start)) s; each read by go, c and cli)"
echo "$passed passed, $failed failed"
if [ $failed -eq 0 ] && [ -z "${HOSTILE_KEEP:-}" ]; then
  rm -rf "$work"
fi
[ $failed -eq 0 ]
