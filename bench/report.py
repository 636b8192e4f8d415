#!/usr/bin/env python3
"""bench/report.py - turn bench/out/results.jsonl into docs/BENCHMARKS.md,
docs/bench.png (dense keys) and docs/bench-shapes.png (drydb's ratios on
every key shape), and refresh the generated summary in README.md. Called by
bench/run; safe to rerun by hand:

    python3 bench/report.py [bench/out/results.jsonl] [--ref lmdb]

Tables: per key shape (bench/shapes.py), one per language and row count,
stores x operations (median ns per operation), then the same as ratios
against a reference peer measured in the same run (default LMDB; < 1 means
faster than the reference) and against the language's floor (a sorted array
or dict in memory). A language without the reference uses its own
(LANG_REFS: Go compares with bbolt). A summary table gives drydb's ratios on
every shape at once; README.md gets it between its bench-summary markers.
"""
import datetime
import json
import os
import platform
import re
import statistics
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# operations ("shape" in the JSON lines, for the files of older runs)
SHAPES = [
    ("get_one", "get(key 123)"),
    ("get_random", "get, random keys"),
    ("get_stream", "get, 2^20-key stream"),
    ("get_many_stream", "get_many ×256, stream (per key)"),
    ("scan_100", "scan 100 rows"),
    ("first_100", "first 100 of an open range"),
    ("count_8000", "count 8,000 rows"),
    ("open_get", "open + first get"),
    ("build", "build (per row)"),
]
# key shapes ("data" in the JSON lines; absent = dense): bench/shapes.py
DATA = [
    ("dense", "Dense int64 keys, 13-byte values",
     "int64 keys 0..N-1 (8 bytes big-endian, sign bit flipped), values `value-` + 7 digits: the original shape."),
    ("sparse", "Sparse int64 keys, values of 8–40 bytes",
     "int64 keys from 1000 upward with gaps drawn uniformly from 1..2,000; values of 8–40 bytes."),
    ("str16", "16-byte string keys, values of 13–36 bytes",
     "16-byte ASCII keys of three kinds users have: 1/2 hex of a 64-bit hash (random, no shared prefix), "
     "1/4 `user:%011d` (a namespace and zero-padded ids: ten or more shared leading bytes), 1/4 "
     "`ord-YYYYMMDD-nnn` (a date shared by runs of keys, a counter within the day); values of 13–36 bytes."),
    ("uuid7", "UUIDv7 keys, values of 8–40 bytes",
     "UUIDv7 (RFC 9562): 48-bit ms timestamps rising by 0–3 ms per key (several keys per ms), version 7, "
     "variant 10, 74 random bits; 16 bytes; values of 8–40 bytes."),
]
LANGS = [("c", "C"), ("go", "Go"), ("python", "Python"), ("csharp", "C# (Mono)")]
ORDER = ["drydb", "drydb_zstd", "drydb_zstd_hash", "array", "dict", "dictionary", "tinycdb", "lmdb", "bbolt", "sqlite", "sqlite_tuned",
         "rocksdb"]
# reference peers of a language, tried after --ref: the first present gets the
# bold row; each present one gets a ratio table (the floor last)
LANG_REFS = {"c": ["array"], "go": ["bbolt", "array"], "python": ["dict"], "csharp": ["array"]}
FLOORS = {"array": "a sorted array searched in memory", "dict": "a dict in memory",
          "dictionary": "a Dictionary in memory"}
# the summary: drydb against one peer per language (Go: its floor, the sorted
# slice; the others: LMDB), on these operations
SUMMARY_REF = {"c": "lmdb", "go": "array", "python": "lmdb", "csharp": "lmdb"}
SUMMARY_OPS = ["get_random", "get_stream", "scan_100", "first_100", "count_8000", "open_get"]
README_BEGIN, README_END = "<!-- bench-summary:begin -->", "<!-- bench-summary:end -->"


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""


def machine():
    cpu, cores, mem = "?", 0, "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and cpu == "?":
                cpu = line.split(":", 1)[1].strip()
            if line.startswith("processor"):
                cores += 1
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1048576)
    except OSError:
        pass
    osname = sh(". /etc/os-release && echo $PRETTY_NAME")
    return [
        ("CPU", "%s, %d logical cores" % (cpu, cores)),
        ("memory", mem),
        ("OS", "%s; `%s`" % (osname, " ".join(platform.uname()[i] for i in (0, 2, 3, 4)))),
        ("gcc", sh("gcc --version | head -n 1")),
        ("Go", sh("go version")),
        ("Python", sh("%s --version" % os.environ.get("BENCH_PYTHON", "python3"))),
        ("Mono", sh("mono --version | head -n 1")),
        ("mcs", sh("mcs --version")),
        ("load average (1/5/15 min)", "%s at the start of the run, %s at its end (2 cores: above ~1 the "
         "figures are disturbed by other work)" % (readf("loadavg_start"), readf("loadavg_end"))),
    ]


def readf(name):
    try:
        return open(os.path.join(ROOT, "bench", "out", name)).read().strip() or "?"
    except OSError:
        return "?"


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns < 10:
        return "%.1f ns" % ns
    if ns < 1e4:
        return "%s ns" % format(round(ns), ",")
    if ns < 1e7:
        return "%s µs" % format(round(ns / 1e3, 1 if ns < 1e5 else None), ",")
    return "%s ms" % format(round(ns / 1e6, 1), ",")


def ratio(x):
    return ("%.2f×" % x) if x >= 0.095 else ("%.2g×" % x)


def spread(rec):
    r = rec.get("reps") or []
    if len(r) < 2 or min(r) <= 0:
        return 0.0
    return max(r) / min(r) - 1


def load(path):
    """{(lang, data, rows, store, op): record}"""
    res = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        res[(d["lang"], d.get("data", "dense"), d["rows"], d["store"], d["shape"])] = d
    return res


def stores_of(res, lang, data, rows):
    found = {k[3] for k in res if k[:3] == (lang, data, rows)}
    return sorted(found, key=lambda s: (ORDER.index(s) if s in ORDER else 99, s))


def refs_of(res, lang, data, rows, ref):
    want = [ref] + LANG_REFS.get(lang, [])
    return [r for r in dict.fromkeys(want) if any(k[:4] == (lang, data, rows, r) for k in res)]


def table(res, lang, data, rows, refs):
    stores = stores_of(res, lang, data, rows)
    at = lambda st, s: res.get((lang, data, rows, st, s))  # noqa: E731
    shapes = [(s, t) for s, t in SHAPES if any(at(st, s) for st in stores)]
    out = ["| store | " + " | ".join(t for _, t in shapes) + " | build rows/s | file |",
           "|---|" + "---:|" * (len(shapes) + 2)]
    for st in stores:
        cells = []
        for s, _ in shapes:
            r = at(st, s)
            c = fmt_ns(r["ns_per_op"]) if r else "–"
            if r and spread(r) > 0.2:
                c += " ~"
            cells.append(c)
        b = at(st, "build")
        rps = format(b["rows_per_s"], ",") if b and "rows_per_s" in b else "–"
        fb = b.get("file_bytes") if b else 0
        size = ("%s KB" % format(round(fb / 1000), ",")) if fb else "–"
        name = "**%s**" % st if refs and st == refs[0] else st
        out.append("| %s | %s | %s | %s |" % (name, " | ".join(cells), rps, size))
    lines = ["\n".join(out)]
    for ref in refs:
        # only the operations the reference has (a ratio column of dashes says nothing)
        rshapes = [(s, t) for s, t in shapes if at(ref, s)]
        rt = ["| store | " + " | ".join(t for _, t in rshapes) + " |", "|---|" + "---:|" * len(rshapes)]
        for st in stores:
            cells = []
            for s, _ in rshapes:
                a, b = at(st, s), at(ref, s)
                cells.append(ratio(a["ns_per_op"] / b["ns_per_op"]) if a and b and b["ns_per_op"] > 0 else "–")
            rt.append("| %s | %s |" % (st, " | ".join(cells)))
        if ref in FLOORS:
            head = ("Time relative to **%s**, the floor (%s), in the same run (how many times the floor's "
                    "time each store takes):" % (ref, FLOORS[ref]))
        else:
            head = "Time relative to **%s** in the same run (below 1 = faster than %s):" % (ref, ref)
        lines.append("%s\n\n%s" % (head, "\n".join(rt)))
    return "\n\n".join(lines)


def summary_rows(res):
    """(label, data, store) of the summary's lines: drydb on every shape
    measured, then drydb_zstd on the shapes it ran on."""
    out = []
    for store, suffix in (("drydb", ""), ("drydb_zstd", ", zstd pages"),
                          ("drydb_zstd_hash", ", zstd pages + hash index")):
        for data, _, _ in DATA:
            if any(k[1] == data and k[3] == store for k in res):
                out.append((data + suffix, data, store))
    return out


def summary(res, where):
    """drydb's time relative to one peer per language, on every shape: one
    table per language, a cell per operation with one ratio per row count."""
    rows_list = sorted({k[2] for k in res})
    titles = dict(SHAPES)
    parts = []
    for lang, title in LANGS:
        ref = SUMMARY_REF[lang]
        lines = [l for l in summary_rows(res) if any(k[0] == lang and k[1] == l[1] and k[3] == l[2] for k in res)]
        ops = [o for o in SUMMARY_OPS if any(k[0] == lang and k[4] == o and k[3] == ref for k in res)]
        if not lines or not ops:
            continue
        zstd = any(st.startswith("drydb_zstd") for _, _, st in lines)

        def cell(data, store, op, base=ref):
            out = []
            for n in rows_list:
                a, b = res.get((lang, data, n, store, op)), res.get((lang, data, n, base, op))
                out.append(ratio(a["ns_per_op"] / b["ns_per_op"]) if a and b and b["ns_per_op"] > 0 else "–")
            return " / ".join(out)
        head = ["keys"] + [titles[o] for o in ops] + (["open + first get ÷ uncompressed drydb's"] if zstd else [])
        t = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        for label, data, store in lines:
            cells = [cell(data, store, o) for o in ops]
            if zstd:
                cells.append(cell(data, store, "open_get", "drydb") if store.startswith("drydb_zstd") else "")
            t.append("| %s | %s |" % (label, " | ".join(cells)))
        vs = ("its floor, a sorted slice in memory (`[]int64`; `[]string` for string and UUID keys)"
              if ref == "array" else "LMDB" if lang != "python" else "py-lmdb")
        parts.append("**%s**, drydb's time ÷ %s's:\n\n%s" % (title, vs, "\n".join(t)))
    if not parts:
        return ""
    each = " / ".join(format(n, ",") for n in rows_list)
    return ("Each cell: drydb's median time ÷ the peer's in the same run, at %s rows (below 1 = drydb is "
            "faster). %s\n\n%s" % (each, where, "\n\n".join(parts)))


def configs(res):
    seen = {}
    for (lang, data, rows, st, shape), d in sorted(res.items()):
        if shape == "build" and (lang, st) not in seen:
            seen[(lang, st)] = (d.get("version", ""), d.get("config", ""))
    return seen


def write_md(res, path, ref, src, shapes_png):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    L = ["<!-- GENERATED by bench/report.py from bench/out/results.jsonl: do not edit by hand. "
         "Regenerate with `make bench` (bench/run). -->",
         "# drydb benchmarks", "",
         "_Generated by `bench/report.py` from the results of `bench/run` (%s). Do not edit this file by hand: "
         "run `make bench` (or `bench/run`) to measure again._" % now, "",
         "Every figure is the **median** of several repetitions (env `BENCH_REPS`, default 7 in `bench/run`) of ns per "
         "operation; each repetition lasts about `BENCH_TARGET_MS` (25 ms). The machine is noisy: compare "
         "stores of the same run through the ratio tables, and treat differences under ~20 % as noise. "
         "A `~` marks a cell whose repetitions spread by more than 20 %.", ""]
    summ = summary(res, "The full tables follow.")
    if summ:
        L += ["## Summary by key shape", "", summ, ""]
        if shapes_png:
            L += ["![drydb's time relative to its peer, by key shape](bench-shapes.png)", ""]
    L += ["## Machine", ""]
    L += ["| | |", "|---|---|"] + ["| %s | %s |" % kv for kv in machine()]
    L += ["", "## Key shapes", "",
          "The rows of each shape are written once per run by `bench/shapes.py` (fixed seeds) and read by every "
          "language, so all stores of all languages load the same rows. N = 10,000 and 1,000,000. `drydb_zstd` is "
          "drydb's table with zstd pages (default level, no dictionary), measured on the dense and str16 rows "
          "beside the same peers; `drydb_zstd_hash` (C, str16) is the same with a hash index as well "
          "(`DRYDB_HASH`: a compressed table gets one only when asked; the file column shows its size). "
          "Files are read with a warm OS cache.", "",
          "| shape | keys and values |", "|---|---|"]
    L += ["| %s | %s |" % (d, text) for d, _, text in DATA]
    L += ["", "## Operations", "",
          "Key *i* is the *i*-th smallest key of the shape, so every shape runs the same operations.", "",
          "| operation | what one operation is |", "|---|---|",
          "| get(key 123) | point get of key 123, repeated |",
          "| get, random keys | point get of keys *i* with *i* from the LCG `seed = seed*1664525 + 1013904223` "
          "(uint32) `% N`, seed 1; the same 1,000-key sequence repeats |",
          "| get, 2^20-key stream | point get over a pre-generated array of 2^20 LCG keys (seed 42), each used "
          "once per pass (repetitions continue through the stream) |",
          "| get_many ×256 | the same stream through the store's batch call, 256 keys per call; ns per key "
          "(only stores with a native batch call) |",
          "| scan 100 rows | range [key 2000, key 2099], every value read |",
          "| first 100 of an open range | Python: the first 100 (key, value) rows of the range key ≥ key 2000 "
          "with no upper bound, taken from the store's lazy iterator (`itertools.islice`) |",
          "| count 8,000 rows | number of rows in [key 1000, key 8999] |",
          "| open + first get | open the file, get(key 123), close |",
          "| build | write the database from sorted input, synced; ns per row (rows/s beside) |", ""]
    for data, title, _ in DATA:
        if not any(k[1] == data for k in res):
            continue
        L.append("## %s" % title)
        for rows in sorted({k[2] for k in res if k[1] == data}):
            for lang, ltitle in LANGS:
                if not any(k[:3] == (lang, data, rows) for k in res):
                    continue
                L += ["", "### %s, %s, %s rows" % (ltitle, data, format(rows, ",")), "",
                      table(res, lang, data, rows, refs_of(res, lang, data, rows, ref)), ""]
    L += merge_section(os.path.join(os.path.dirname(os.path.abspath(src)), "merge.txt"))
    L += ["## Stores and how each is configured", "", "| language | store | version | configuration |",
          "|---|---|---|---|"]
    for (lang, st), (ver, cfg) in sorted(configs(res).items()):
        L.append("| %s | %s | %s | %s |" % (lang, st, ver.replace("|", "/"), cfg.replace("|", "/")))
    # after the stores: beside "Rebuild by merge", without touching its lines
    L += [""] + live_section(os.path.join(os.path.dirname(os.path.abspath(src)), "live.jsonl"))
    L += columnar_section(os.path.join(os.path.dirname(os.path.abspath(src)), "columnar.jsonl"))
    L += ["", "![chart: dense keys](bench.png)", "",
          "Harness sources: `bench/shapes.py` (the key shapes), `bench/c` (one program per store: `driver.c` + "
          "`store_<name>.c`), `bench/go` (drydb's engine package, bbolt and a sorted slice in one program), "
          "`bench/python/bench.py`, `bench/csharp/Bench.cs`; runner `bench/run`; this report `bench/report.py`.", ""]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(L))


def merge_section(path):
    """Rebuild by merge against a full rebuild: `go test -bench BenchmarkMerge`
    output (bench/run writes bench/out/merge.txt), medians per case."""
    if not os.path.exists(path):
        return []
    runs = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"BenchmarkMerge/(\w+)/([\w%]+)-\d+\s+\d+\s+(\d+) ns/op", line)
            if m:
                runs.setdefault((m.group(1), m.group(2)), []).append(int(m.group(3)))
    if not runs:
        return []
    med = {k: statistics.median(v) for k, v in runs.items()}
    L = ["## Rebuild by merge", "",
         "Go engine, 1,000,000 int64 rows with 18-byte values: a full rebuild from sorted input against merging 1 %% "
         "and 10 %% changes (half replaced rows, a quarter new keys, a quarter deletes, in random order) into the "
         "built file (`engine.NewMergeBuilder`), output to `io.Discard`; median of %d runs each, in the same run "
         "(`go test -bench BenchmarkMerge ./engine`). Targets: 1 %% ≤ 0.3×, 10 %% ≤ 0.6× the full rebuild." %
         min(len(v) for v in runs.values()), "",
         "| pages | full rebuild | merge 1 % | ratio | merge 10 % | ratio |", "|---|---:|---:|---:|---:|---:|"]
    for comp in sorted({c for c, _ in med}):
        full = med.get((comp, "full"))
        cells = []
        for pct in ("merge1%", "merge10%"):
            v = med.get((comp, pct))
            cells += [fmt_ns(v) if v else "–", "%.2f×" % (v / full) if v and full else "–"]
        L.append("| %s | %s | %s |" % ("plain" if comp == "none" else comp, fmt_ns(full) if full else "–",
                                       " | ".join(cells)))
    return L + [""]


def update_readme(res, path):
    """Replace the text between README_BEGIN and README_END with the summary
    (README.md keeps one generated block; nothing else of it is touched)."""
    try:
        text = open(path).read()
    except OSError:
        return False
    a, b = text.find(README_BEGIN), text.find(README_END)
    summ = summary(res, "The full tables are in [docs/BENCHMARKS.md](docs/BENCHMARKS.md).")
    if a < 0 or b < a or not summ:
        return False
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    block = "%s\n<!-- generated by bench/report.py (make bench, %s): do not edit by hand -->\n%s\n" % (
        README_BEGIN, now, summ)
    with open(path, "w") as f:
        f.write(text[:a] + block + text[b:])
    return True


# ---------------------------------------------------------------- chart

COLORS = {"drydb": "#d62728", "drydb_zstd": "#ff9896", "drydb_zstd_hash": "#e377c2", "array": "#7f7f7f", "dict": "#bcbd22", "dictionary": "#bcbd22",
          "tinycdb": "#8c564b", "lmdb": "#2ca02c", "sqlite": "#1f77b4", "sqlite_tuned": "#17becf",
          "rocksdb": "#9467bd", "bbolt": "#e377c2"}


def jsonl(path):
    """The JSON records of a side file of the run (bench/out/*.jsonl); [] when it is missing."""
    try:
        return [json.loads(l) for l in open(path) if l.startswith("{")]
    except OSError:
        return []


COLUMNAR_TARGETS = {"build_numpy": "≥ 4,000,000 rows/s and ≥ lmdb_put", "build_arrow": "≥ 4,000,000 rows/s and ≥ lmdb_put",
                    "build_string": "≥ 2,500,000 rows/s", "get_many_cols": "≤ 30 ns a key",
                    "range_cols_numpy": "≤ 15 ns a row", "range_cols_arrow": "≤ 15 ns a row"}


def columnar_section(path):
    """Markdown lines for bench/out/columnar.jsonl (bench/python/columnar.py --json), if the run wrote it."""
    recs = jsonl(path)
    if not recs:
        return []
    L = ["## Columnar Python (issue 23)", "",
         "`bench/python/columnar.py`: %s rows of int64 keys and 13-byte values (string keys `key-%%08d` for "
         "the `_str` rows), built from NumPy/Arrow columns and read back into columns; `lmdb_put` is py-lmdb's "
         "`putmulti` of the same sorted rows, `add_many` and `get_many_rows` drydb's row API, all in the same "
         "run. Medians of the repetitions, wall time and the process's CPU time (load average %s). Reads are "
         "the steady state (three calls untimed first, then the median of nine or more); `get_many_cols_first` "
         "is the first call after open, which faults the file's pages in." %
         (format(recs[0]["rows"], ","), recs[0].get("loadavg", "?")), "",
         "| operation | ns a %s, wall | ns, CPU | per second | target |" % "row or key", "|---|---:|---:|---:|---|"]
    for r in recs:
        L.append("| %s | %.1f | %.1f | %s | %s |" % (r["op"], r["ns_per_item_wall"], r["ns_per_item_cpu"],
                                                    format(r["items_per_s_wall"], ","),
                                                    COLUMNAR_TARGETS.get(r["op"], "")))
    return L + [""]


def live_section(path):
    """Markdown lines for bench/out/live.jsonl (bench/c/refresh.c), if the run wrote it."""
    recs = jsonl(path)
    if not recs:
        return []
    L = ["## Live data: drydb_refresh", "",
         "`bench/c/refresh.c`: %d rounds of renaming another file over the path and calling `drydb_refresh` "
         "while one reader thread runs `drydb_get` on random keys. *refresh* is the time on the calling "
         "thread (median, and the slowest round); *longest get* is the reader's slowest single get, first "
         "as long without refreshes, then during them: on this shared 2-core machine both are set by "
         "preemption, not by the refresh (readers never wait for it)." % recs[0]["rounds"], "",
         "| rows | refresh, median | refresh, slowest | longest get, quiet | longest get, refreshing | gets |",
         "|---:|---:|---:|---:|---:|---:|"]
    for r in recs:
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            format(r["rows"], ","), fmt_ns(r["refresh_median_ns"]), fmt_ns(r["refresh_max_ns"]),
            fmt_ns(r["get_max_quiet_ns"]), fmt_ns(r["get_max_refreshing_ns"]),
            format(r["gets_quiet"] + r["gets_refreshing"], ",")))
    return L + [""]


def color_of(store):
    return COLORS.get(store, "#ff7f0e")


def chart(res, path):
    """Dense keys: ns per operation, a panel per (row count, language)."""
    res = {(k[0], k[2], k[3], k[4]): d for k, d in res.items() if k[1] == "dense"}
    if not res:
        return
    rows_list = sorted({k[1] for k in res})
    langs = [(l, t) for l, t in LANGS if any(k[0] == l for k in res)]
    plt = pyplot()
    if plt is None:
        return plain_chart(res, path)
    shapes = [s for s, _ in SHAPES if s != "build"]
    fig, axes = plt.subplots(len(rows_list), len(langs), figsize=(6 * len(langs), 4.2 * len(rows_list)),
                             squeeze=False)
    for i, rows in enumerate(rows_list):
        for j, (lang, title) in enumerate(langs):
            ax = axes[i][j]
            stores = sorted({k[2] for k in res if k[:2] == (lang, rows)},
                            key=lambda s: (ORDER.index(s) if s in ORDER else 99, s))
            sh_here = [s for s in shapes if any((lang, rows, st, s) in res for st in stores)]
            w = 0.8 / max(1, len(stores))
            for si, st in enumerate(stores):
                xs, ys = [], []
                for x, s in enumerate(sh_here):
                    r = res.get((lang, rows, st, s))
                    if r:
                        xs.append(x + (si - (len(stores) - 1) / 2) * w)
                        ys.append(r["ns_per_op"])
                ax.bar(xs, ys, w, label=st, color=color_of(st))
            ax.set_yscale("log")
            ax.set_xticks(range(len(sh_here)))
            ax.set_xticklabels(sh_here, rotation=30, ha="right", fontsize=8)
            ax.set_title("%s, dense keys, %s rows" % (title, format(rows, ",")))
            ax.set_ylabel("ns per op (log)")
            ax.grid(axis="y", alpha=0.3)
            if stores:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def chart_shapes(res, path):
    """drydb's time ÷ the summary's peer, per language (rows of panels: row
    counts), groups = key shapes, bars = operations; True if drawn."""
    plt = pyplot()
    lines = summary_rows(res)
    rows_list = sorted({k[2] for k in res})
    langs = [(l, t) for l, t in LANGS if any(k[0] == l and k[3] == SUMMARY_REF[l] for k in res)]
    if plt is None or not lines or not langs:
        return False
    colors = ["#d62728", "#ff7f0e", "#1f77b4", "#9467bd", "#2ca02c", "#7f7f7f"]
    fig, axes = plt.subplots(len(rows_list), len(langs), figsize=(6 * len(langs), 4.2 * len(rows_list)),
                             squeeze=False)
    for i, rows in enumerate(rows_list):
        for j, (lang, title) in enumerate(langs):
            ax, ref = axes[i][j], SUMMARY_REF[lang]
            ops = [o for o in SUMMARY_OPS if any(k[0] == lang and k[4] == o and k[3] == ref for k in res)]
            w = 0.8 / max(1, len(ops))
            for oi, op in enumerate(ops):
                xs, ys = [], []
                for x, (_, data, store) in enumerate(lines):
                    a, b = res.get((lang, data, rows, store, op)), res.get((lang, data, rows, ref, op))
                    if a and b and b["ns_per_op"] > 0:
                        xs.append(x + (oi - (len(ops) - 1) / 2) * w)
                        ys.append(a["ns_per_op"] / b["ns_per_op"])
                ax.bar(xs, ys, w, label=dict(SHAPES)[op], color=colors[oi % len(colors)])
            ax.axhline(1, color="black", lw=0.8)
            ax.set_yscale("log")
            ax.set_xticks(range(len(lines)))
            ax.set_xticklabels([l for l, _, _ in lines], rotation=30, ha="right", fontsize=8)
            ax.set_title("%s, %s rows: drydb ÷ %s" % (title, format(rows, ","), ref))
            ax.set_ylabel("time ratio (log; below 1 = drydb faster)")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("report: matplotlib missing (pip install matplotlib): plain dense chart, no shapes chart",
              file=sys.stderr)
        return None


def plain_chart(res, path):
    """No matplotlib: horizontal log-scale bars of get_random per (lang, rows, store), no text."""
    bars = [(k, d["ns_per_op"]) for k, d in sorted(res.items()) if k[3] == "get_random"]
    W, bh = 600, 12
    H = max(1, len(bars)) * (bh + 4) + 8
    px = [[(255, 255, 255)] * W for _ in range(H)]
    colors = {"c": (52, 101, 164), "go": (0, 173, 216), "python": (78, 154, 6), "csharp": (204, 0, 0)}
    import math
    for i, (k, ns) in enumerate(bars):
        length = int(min(W - 10, max(2, 80 * math.log10(max(ns, 1)))))
        for y in range(8 + i * (bh + 4), 8 + i * (bh + 4) + bh):
            for x in range(5, 5 + length):
                px[y][x] = colors.get(k[0], (0, 0, 0))
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in px)

    def chunk(t, data):
        return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="?", default=os.path.join(ROOT, "bench", "out", "results.jsonl"))
    ap.add_argument("--ref", default="lmdb", help="reference peer for the ratio tables")
    ap.add_argument("--md", default=os.path.join(ROOT, "docs", "BENCHMARKS.md"))
    ap.add_argument("--png", default=os.path.join(ROOT, "docs", "bench.png"))
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"),
                    help="file whose bench-summary block gets the summary ('' = none)")
    a = ap.parse_args()
    res = load(a.results)
    if not res:
        sys.exit("report: no results in %s" % a.results)
    shapes_png = os.path.join(os.path.dirname(a.png), "bench-shapes.png")
    drawn = chart_shapes(res, shapes_png)
    write_md(res, a.md, a.ref, a.results, drawn)
    chart(res, a.png)
    wrote = [a.md, a.png] + ([shapes_png] if drawn else [])
    if a.readme and update_readme(res, a.readme):
        wrote.append(a.readme)
    print("report: wrote %s" % ", ".join(os.path.relpath(p, ROOT) for p in wrote), file=sys.stderr)


if __name__ == "__main__":
    main()
