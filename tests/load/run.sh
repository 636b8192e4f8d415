#!/usr/bin/env bash
# tests/load/run.sh - several processes, 8 threads each, read one drydb file
# at once for LOAD_SECONDS seconds (default 60), every answer checked.
#
#   tests/load/run.sh                    # ~60 s of load, under 2 min in all
#   LOAD_SECONDS=10 tests/load/run.sh    # quick run
#
# Processes: go (built with -race), c x2 (pthreads, build/libdrydb.so),
# python x2 (threading, ctypes binding), csharp (Mono; skipped when mcs/mono
# are missing). Results: tests/load/out/results.jsonl, a summary table, and
# "N passed, N failed"; exit status 1 on any failure.
# Knobs: LOAD_SECONDS (integer), THREADS (default 8), LOAD_REBUILD=1 (run
# `make lib` even if build/libdrydb.so exists), LOAD_FILE (read this file
# instead of generating one; LOAD_GEN_BAD=1 generates a wrong file, to see
# the checks fail).
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/tests/load/out
LOAD_SECONDS=${LOAD_SECONDS:-60}
export LOAD_SECONDS THREADS=${THREADS:-8}
GO=${GO:-go}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"
rm -f "$OUT"/*.out "$OUT"/*.err "$OUT"/results.jsonl

die() { echo "run.sh: $*" >&2; exit 2; }
t_start=$(date +%s)

# --- build ------------------------------------------------------------------
if [ ! -f build/libdrydb.so ] || [ "${LOAD_REBUILD:-}" = 1 ]; then
    make lib >/dev/null || die "make lib failed"
fi
"$GO" build -o "$OUT/gen" ./tests/load/gen || die "building the generator failed"
"$GO" build -race -o "$OUT/goreader" ./tests/load/goreader || die "building the Go reader (-race) failed"
"$CC" -O2 -Wall -pthread -Iinclude tests/load/creader/creader.c -L"$ROOT/build" -ldrydb \
    -Wl,-rpath,"$ROOT/build" -o "$OUT/creader" || die "building the C reader failed"
have_cs=0
if command -v mcs >/dev/null && command -v mono >/dev/null; then
    make -s -C bindings/csharp >/dev/null || die "make -C bindings/csharp failed"
    mkdir -p "$OUT/cs"
    cp bindings/csharp/out/DryDB.dll bindings/csharp/out/DryDB.dll.config "$OUT/cs/"
    cp -L build/libdrydb.so "$OUT/cs/libdrydb.so"
    mcs -langversion:7.2 -optimize+ -nowarn:1591 -r:"$OUT/cs/DryDB.dll" -r:System.Core \
        -out:"$OUT/cs/CsReader.exe" tests/load/csreader/CsReader.cs || die "building the C# reader failed"
    have_cs=1
else
    echo "run.sh: mcs/mono not found: no C# reader (apt-get install -y mono-mcs mono-runtime)" >&2
fi

# --- data -------------------------------------------------------------------
FILE=${LOAD_FILE:-$OUT/load.drydb}
if [ -z "${LOAD_FILE:-}" ]; then
    "$OUT/gen" "$FILE" || die "generating $FILE failed"
fi

# --- readers, all at once ------------------------------------------------------
names=(go c1 c2 python1 python2)
cmds=("$OUT/goreader $FILE"
      "$OUT/creader $FILE"
      "$OUT/creader $FILE"
      "env DRYDB_LIBRARY=$ROOT/build/libdrydb.so PYTHONPATH=$ROOT/bindings/python $PYTHON $ROOT/tests/load/pyreader/pyreader.py $FILE"
      "env DRYDB_LIBRARY=$ROOT/build/libdrydb.so PYTHONPATH=$ROOT/bindings/python $PYTHON $ROOT/tests/load/pyreader/pyreader.py $FILE")
if [ $have_cs = 1 ]; then
    names+=(csharp)
    cmds+=("mono $OUT/cs/CsReader.exe $FILE")
fi
limit=$((LOAD_SECONDS + 90)) # a reader that hangs is killed and fails
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load: ${#names[@]} processes x $THREADS threads for ${LOAD_SECONDS}s on $FILE ($(nproc) CPUs, load average $load_before)"
pids=()
for i in "${!names[@]}"; do
    # shellcheck disable=SC2086 # the commands are word lists
    timeout -k 10 $limit ${cmds[$i]} >"$OUT/${names[$i]}.out" 2>"$OUT/${names[$i]}.err" &
    pids+=($!)
done
# the load average near the end of the run (1-minute figure covers it)
sleep $((LOAD_SECONDS > 2 ? LOAD_SECONDS - 1 : 1))
load_during=$(cut -d' ' -f1-3 /proc/loadavg)
rcs=()
for i in "${!pids[@]}"; do
    wait "${pids[$i]}"
    rcs+=($?)
done

# --- results ------------------------------------------------------------------
args=()
for i in "${!names[@]}"; do args+=("${names[$i]}" "${rcs[$i]}"); done
LOAD_BEFORE=$load_before LOAD_DURING=$load_during WALL=$(( $(date +%s) - t_start )) \
"$PYTHON" - "$OUT" "${args[@]}" <<'PYEOF'
import json, os, sys
out = sys.argv[1]
rest = sys.argv[2:]
rows, passed, failed = [], 0, 0
with open(os.path.join(out, "results.jsonl"), "w") as res:
    for name, rc in zip(rest[0::2], rest[1::2]):
        rc = int(rc)
        line = None
        with open(os.path.join(out, name + ".out")) as f:
            for l in f:
                l = l.strip()
                if l.startswith("{"):
                    line = l
        with open(os.path.join(out, name + ".err"), errors="replace") as f:
            err = f.read()
        try:
            r = json.loads(line) if line else {}
        except ValueError:
            r = {}
        r["proc"], r["exit"] = name, rc
        why = []
        if rc != 0:
            why.append("exit status %d%s" % (rc, " (killed: timeout)" if rc in (124, 137) else ""))
        if "ops" not in r:
            why.append("no result line")
        if "DATA RACE" in err:
            r["data_race"] = True
            why.append("data race reported")
        if r.get("errors", 0) != 0:
            why.append("%d wrong answers" % r["errors"])
        if r.get("ops", 0) <= 0:
            why.append("no operations")
        r["passed"] = not why
        if why:
            r["why"] = why
            if err.strip():
                r["stderr_tail"] = err.strip()[-2000:]
        res.write(json.dumps(r) + "\n")
        rows.append(r)
        passed += r["passed"]
        failed += not r["passed"]
print("%-8s %-7s %6s %12s %10s %7s  %s" % ("process", "lang", "pid", "ops", "ops/s", "errors", "result"))
for r in rows:
    print("%-8s %-7s %6s %12s %10s %7s  %s" % (r["proc"], r.get("lang", "?"), r.get("pid", "?"),
          r.get("ops", "-"), r.get("ops_per_s", "-"), r.get("errors", "-"),
          "ok" if r["passed"] else "FAIL: " + "; ".join(r["why"])))
    for m in r.get("first_errors", []):
        print("    " + m)
    if not r["passed"] and r.get("stderr_tail"):
        print("    stderr: " + r["stderr_tail"][-600:].replace("\n", "\n    "))
print("load average: %s before, %s near the end; wall time %ss" % (
    os.environ["LOAD_BEFORE"], os.environ["LOAD_DURING"], os.environ["WALL"]))
print("results: %s" % os.path.join(out, "results.jsonl"))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PYEOF
