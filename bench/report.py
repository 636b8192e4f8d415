#!/usr/bin/env python3
"""bench/report.py - turn bench/out/results.jsonl into docs/BENCHMARKS.md and
docs/bench.png. Called by bench/run; safe to rerun by hand:

    python3 bench/report.py [bench/out/results.jsonl] [--ref lmdb]

Tables: one per language and row count, stores x shapes (median ns per
operation), then the same as ratios against a reference peer measured in the
same run (default LMDB; < 1 means faster than the reference). A language
without the reference uses its own (LANG_REFS: Go compares with bbolt), and
LANG_REFS may add more (Go: also its floor, the sorted array).
"""
import datetime
import json
import os
import platform
import re
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = [
    ("get_one", "get(123)"),
    ("get_random", "get, random keys"),
    ("get_stream", "get, 2^20-key stream"),
    ("get_many_stream", "get_many ×256, stream (per key)"),
    ("scan_100", "scan 100 rows"),
    ("count_8000", "count 8,000 rows"),
    ("open_get", "open + first get"),
    ("build", "build (per row)"),
]
LANGS = [("c", "C"), ("go", "Go"), ("python", "Python"), ("csharp", "C# (Mono)")]
ORDER = ["drydb", "array", "dict", "dictionary", "tinycdb", "lmdb", "bbolt", "sqlite", "sqlite_tuned", "rocksdb"]
# reference peers of a language, tried after --ref: the first present gets the
# bold row; each present one gets a ratio table
LANG_REFS = {"go": ["bbolt", "array"]}
FLOORS = {"array": "a sorted array searched in memory", "dict": "a dict in memory",
          "dictionary": "a Dictionary in memory"}


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
    res = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        res[(d["lang"], d["rows"], d["store"], d["shape"])] = d
    return res


def stores_of(res, lang, rows):
    found = {k[2] for k in res if k[0] == lang and k[1] == rows}
    return sorted(found, key=lambda s: (ORDER.index(s) if s in ORDER else 99, s))


def refs_of(res, lang, rows, ref):
    want = [ref] + LANG_REFS.get(lang, [])
    return [r for r in dict.fromkeys(want) if any(k[:3] == (lang, rows, r) for k in res)]


def table(res, lang, rows, refs):
    stores = stores_of(res, lang, rows)
    shapes = [(s, t) for s, t in SHAPES if any((lang, rows, st, s) in res for st in stores)]
    out = ["| store | " + " | ".join(t for _, t in shapes) + " | build rows/s | file |",
           "|---|" + "---:|" * (len(shapes) + 2)]
    for st in stores:
        cells = []
        for s, _ in shapes:
            r = res.get((lang, rows, st, s))
            c = fmt_ns(r["ns_per_op"]) if r else "–"
            if r and spread(r) > 0.2:
                c += " ~"
            cells.append(c)
        b = res.get((lang, rows, st, "build"))
        rps = format(b["rows_per_s"], ",") if b and "rows_per_s" in b else "–"
        fb = b.get("file_bytes") if b else 0
        size = ("%s KB" % format(round(fb / 1000), ",")) if fb else "–"
        name = "**%s**" % st if refs and st == refs[0] else st
        out.append("| %s | %s | %s | %s |" % (name, " | ".join(cells), rps, size))
    lines = ["\n".join(out)]
    for ref in refs:
        # only the shapes the reference has (a ratio column of dashes says nothing)
        rshapes = [(s, t) for s, t in shapes if (lang, rows, ref, s) in res]
        rt = ["| store | " + " | ".join(t for _, t in rshapes) + " |", "|---|" + "---:|" * len(rshapes)]
        for st in stores:
            cells = []
            for s, _ in rshapes:
                a, b = res.get((lang, rows, st, s)), res.get((lang, rows, ref, s))
                cells.append(ratio(a["ns_per_op"] / b["ns_per_op"]) if a and b and b["ns_per_op"] > 0 else "–")
            rt.append("| %s | %s |" % (st, " | ".join(cells)))
        if ref in FLOORS:
            head = ("Time relative to **%s**, the floor (%s), in the same run (how many times the floor's "
                    "time each store takes):" % (ref, FLOORS[ref]))
        else:
            head = "Time relative to **%s** in the same run (below 1 = faster than %s):" % (ref, ref)
        lines.append("%s\n\n%s" % (head, "\n".join(rt)))
    return "\n\n".join(lines)


def configs(res):
    seen = {}
    for (lang, rows, st, shape), d in sorted(res.items()):
        if shape == "build" and (lang, st) not in seen:
            seen[(lang, st)] = (d.get("version", ""), d.get("config", ""))
    return seen


def write_md(res, path, ref, src):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    L = ["<!-- GENERATED by bench/report.py from bench/out/results.jsonl: do not edit by hand. "
         "Regenerate with `make bench` (bench/run). -->",
         "# drydb benchmarks", "",
         "_Generated by `bench/report.py` from the results of `bench/run` (%s). Do not edit this file by hand: "
         "run `make bench` (or `bench/run`) to measure again._" % now, "",
         "Every figure is the **median** of several repetitions (env `BENCH_REPS`, default 7 in `bench/run`) of ns per "
         "operation; each repetition lasts about `BENCH_TARGET_MS` (25 ms). The machine is noisy: compare "
         "stores of the same run through the ratio tables, and treat differences under ~20 % as noise. "
         "A `~` marks a cell whose repetitions spread by more than 20 %.", "",
         "## Machine", ""]
    L += ["| | |", "|---|---|"] + ["| %s | %s |" % kv for kv in machine()]
    L += ["", "## Shapes", "",
          "Rows: int64 keys 0..N-1 encoded as 8 bytes big-endian with the sign bit flipped, 13-byte values "
          "`value-` + 7 digits; N = 10,000 and 1,000,000. Files are read with a warm OS cache.", "",
          "| shape | what one operation is |", "|---|---|",
          "| get(123) | point get of key 123, repeated |",
          "| get, random keys | point get of keys from the LCG `seed = seed*1664525 + 1013904223` (uint32) `% N`, "
          "seed 1; the same 1,000-key sequence repeats |",
          "| get, 2^20-key stream | point get over a pre-generated array of 2^20 LCG keys (seed 42), each used "
          "once per pass (repetitions continue through the stream) |",
          "| get_many ×256 | the same stream through the store's batch call, 256 keys per call; ns per key "
          "(only stores with a native batch call) |",
          "| scan 100 rows | range [2000, 2099], every value read |",
          "| count 8,000 rows | number of rows in [1000, 8999] |",
          "| open + first get | open the file, get(123), close |",
          "| build | write the database from sorted input, synced; ns per row (rows/s beside) |", ""]
    for rows in sorted({k[1] for k in res}):
        L.append("## %s rows" % format(rows, ","))
        for lang, title in LANGS:
            if not any(k[0] == lang and k[1] == rows for k in res):
                continue
            L += ["", "### %s, %s rows" % (title, format(rows, ",")), "",
                  table(res, lang, rows, refs_of(res, lang, rows, ref)), ""]
    L += ["## Stores and how each is configured", "", "| language | store | version | configuration |",
          "|---|---|---|---|"]
    for (lang, st), (ver, cfg) in sorted(configs(res).items()):
        L.append("| %s | %s | %s | %s |" % (lang, st, ver.replace("|", "/"), cfg.replace("|", "/")))
    L += ["", "![chart](bench.png)", "",
          "Harness sources: `bench/c` (one program per store: `driver.c` + `store_<name>.c`), "
          "`bench/go` (drydb's engine package, bbolt and a sorted `[]int64` in one program), "
          "`bench/python/bench.py`, `bench/csharp/Bench.cs`; runner `bench/run`; this report `bench/report.py`.", ""]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(L))


# ---------------------------------------------------------------- chart

COLORS = {"drydb": "#d62728", "array": "#7f7f7f", "dict": "#bcbd22", "dictionary": "#bcbd22",
          "tinycdb": "#8c564b", "lmdb": "#2ca02c", "sqlite": "#1f77b4", "sqlite_tuned": "#17becf",
          "rocksdb": "#9467bd", "bbolt": "#e377c2"}


def color_of(store):
    return COLORS.get(store, "#ff7f0e")


def chart(res, path):
    rows_list = sorted({k[1] for k in res})
    langs = [(l, t) for l, t in LANGS if any(k[0] == l for k in res)]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing (pip install matplotlib): drawing a plain chart", file=sys.stderr)
        return plain_chart(res, path)
    shapes = [s for s, _ in SHAPES if s != "build"]
    fig, axes = plt.subplots(len(rows_list), len(langs), figsize=(6 * len(langs), 4.2 * len(rows_list)),
                             squeeze=False)
    for i, rows in enumerate(rows_list):
        for j, (lang, title) in enumerate(langs):
            ax = axes[i][j]
            stores = stores_of(res, lang, rows)
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
            ax.set_title("%s, %s rows" % (title, format(rows, ",")))
            ax.set_ylabel("ns per op (log)")
            ax.grid(axis="y", alpha=0.3)
            if stores:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


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
    a = ap.parse_args()
    res = load(a.results)
    if not res:
        sys.exit("report: no results in %s" % a.results)
    write_md(res, a.md, a.ref, a.results)
    chart(res, a.png)
    print("report: wrote %s and %s" % (os.path.relpath(a.md, ROOT), os.path.relpath(a.png, ROOT)), file=sys.stderr)


if __name__ == "__main__":
    main()
