"""Python reader of the load test: THREADS threads (default 8) read one file
for LOAD_SECONDS seconds through the drydb binding, checking every answer
against the formulas of tests/load/README.md, then print one JSON line.

    DRYDB_LIBRARY=build/libdrydb.so PYTHONPATH=bindings/python python3 pyreader.py FILE
"""
import itertools
import json
import os
import random
import sys
import threading
import time

import drydb

INT_ROWS = 200000
KMIN = -300000
KMAX = KMIN + 3 * (INT_ROWS - 1)
NAME_ROWS = 100000
GROUPS = 500
PER_GROUP = NAME_ROWS // GROUPS


def int_val(k):
    a = abs(k)
    rep = ("v%d;" % k).encode()
    n = len(rep) + a * 31 % 251
    if a % 97 == 0:
        n = len(rep) + 1025 + a % 3000
    return (rep * (n // len(rep) + 1))[:n]


def name_key(i):
    return "user:%07d" % i


def name_val(i):
    return ("name-%d/grp%03d/" % (i, i % GROUPS) + "x" * (i % 50)).encode()


def grp_key(g):
    return "grp%03d" % g


def first_idx(x):
    s = x - KMIN
    return 0 if s <= 0 else (s + 2) // 3


def last_idx(x):
    s = x - KMIN
    return -1 if s < 0 else min(s // 3, INT_ROWS - 1)


def present(k):
    return KMIN <= k <= KMAX and (k - KMIN) % 3 == 0


class Worker:
    def __init__(self, seed, ints, names, ix):
        self.r = random.Random(seed)
        self.ints, self.names, self.ix = ints, names, ix
        self.ops = 0
        self.errors = 0
        self.msgs = []

    def fail(self, msg):
        self.errors += 1
        if len(self.msgs) < 5:
            self.msgs.append(msg)

    def rand_int_key(self, want_present):
        rn = self.r.randrange
        if want_present:
            return KMIN + 3 * rn(INT_ROWS)
        if rn(2) == 0:
            return KMIN + 3 * rn(INT_ROWS) + 1 + rn(2)
        if rn(2) == 0:
            return KMIN - 1 - rn(1000)
        return KMAX + 1 + rn(1000)

    def op(self):
        self.ops += 1
        rn = self.r.randrange
        ti = rn(2)
        t = self.ints[ti]
        r = rn(100)
        if r < 35:  # point get
            k = self.rand_int_key(r < 25)
            v = t.get(k)
            if present(k):
                if v != int_val(k):
                    self.fail("%s get %d: %r" % (t.name, k, v[:40] if v else v))
            elif v is not None:
                self.fail("%s get absent %d: %r" % (t.name, k, v[:40]))
        elif r < 50:  # batch of 64
            ks = [self.rand_int_key(rn(10) < 7) for _ in range(64)]
            vs = t.get_many(ks)
            for k, v in zip(ks, vs):
                if (v != int_val(k)) if present(k) else (v is not None):
                    self.fail("%s get_many %d: %r" % (t.name, k, v[:40] if v else v))
            if len(vs) != 64:
                self.fail("%s get_many: %d values" % (t.name, len(vs)))
        elif r < 65:  # 100-row scan
            lo = KMIN - 50 + rn(KMAX - KMIN + 100)
            excl = rn(2) == 0
            fi = first_idx(lo + 1 if excl else lo)
            want = max(0, min(100, INT_ROWS - fi))
            it = t.range(lo, None, inclusive=(not excl, False))
            rows = list(itertools.islice(it, 100))
            it.close()
            if len(rows) != want:
                self.fail("%s scan from %d excl %s: %d rows want %d" % (t.name, lo, excl, len(rows), want))
                return
            for j, (k, v) in enumerate(rows):
                ek = KMIN + 3 * (fi + j)
                if k != ek or v != int_val(ek):
                    self.fail("%s scan from %d excl %s row %d: key %d want %d, value %d bytes want %d" % (t.name, lo, excl, j, k, ek, len(v), len(int_val(ek))))
                    return
        elif r < 75:  # count
            span = KMAX - KMIN + 200
            lo, hi = sorted((KMIN - 100 + rn(span), KMIN - 100 + rn(span)))
            fi, li = first_idx(lo), last_idx(hi)
            a, b, inc = lo, hi, [True, True]
            c = rn(6)
            if c == 0:
                a, fi = None, 0
            elif c == 1:
                b, li = None, INT_ROWS - 1
            elif c == 2:
                inc[0], fi = False, first_idx(lo + 1)
            elif c == 3:
                inc[1], li = False, last_idx(hi - 1)
            want = max(0, li - fi + 1)
            n = t.count(a, b, inclusive=tuple(inc))
            if n != want:
                self.fail("%s count %r..%r %r: %d want %d" % (t.name, a, b, inc, n, want))
        elif r < 83:  # string get
            i = rn(NAME_ROWS + NAME_ROWS // 10)
            k = name_key(i)
            if rn(4) == 0:
                k += "x"
                i = NAME_ROWS
            v = self.names.get(k)
            if (v != name_val(i)) if i < NAME_ROWS else (v is not None):
                self.fail("names get %s: %r" % (k, v))
        elif r < 87:  # string batch of 32
            iss = [rn(NAME_ROWS + NAME_ROWS // 5) for _ in range(32)]
            vs = self.names.get_many([name_key(i) for i in iss])
            for i, v in zip(iss, vs):
                if (v != name_val(i)) if i < NAME_ROWS else (v is not None):
                    self.fail("names get_many %d: %r" % (i, v))
        elif r < 92:  # index get
            g = rn(GROUPS + 50)
            got = self.ix.get(grp_key(g))
            if g < GROUPS:
                if got != (name_key(g), name_val(g)):
                    self.fail("index get grp%03d: %r" % (g, got))
            elif got is not None:
                self.fail("index get absent grp%03d: %r" % (g, got))
        elif r < 96:  # index count over groups [g1, g2]
            g1 = rn(GROUPS + 10)
            g2 = g1 + rn(20)
            want = 0 if g1 >= GROUPS else (min(g2, GROUPS - 1) - g1 + 1) * PER_GROUP
            n = self.ix.count(grp_key(g1), grp_key(g2), inclusive=(True, True))
            if n != want:
                self.fail("index count grp%03d..grp%03d: %d want %d" % (g1, g2, n, want))
        else:  # index scan: 100 entries of one group
            g = rn(GROUPS)
            it = self.ix.range(grp_key(g), grp_key(g), inclusive=(True, True), with_index_key=True)
            rows = list(itertools.islice(it, 100))
            it.close()
            for j, (ik, pk, v) in enumerate(rows):
                i = g + GROUPS * j
                if ik != grp_key(g) or pk != name_key(i) or v != name_val(i):
                    self.fail("index scan grp%03d entry %d: %r %r" % (g, j, ik, pk))
                    return
            if len(rows) != 100:
                self.fail("index scan grp%03d: %d entries" % (g, len(rows)))

    def run(self, stop):
        try:
            while not stop.is_set():
                self.op()
        except Exception as e:  # noqa: BLE001 - every failure is reported
            self.fail("exception: %r" % (e,))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pyreader.py FILE")
    secs = float(os.environ.get("LOAD_SECONDS", "60"))
    threads = int(os.environ.get("THREADS", "8"))
    db = drydb.open(sys.argv[1])
    ints = [db.table("ints"), db.table("ints_zstd")]
    names = db.table("names")
    ix = names.index("by_grp")
    stop = threading.Event()
    ws = [Worker((os.getpid() << 20) ^ (t + 1), ints, names, ix) for t in range(threads)]
    ths = [threading.Thread(target=w.run, args=(stop,)) for w in ws]
    t0 = time.monotonic()
    for th in ths:
        th.start()
    time.sleep(secs)
    stop.set()
    for th in ths:
        th.join()
    el = time.monotonic() - t0
    db.close()
    ops = sum(w.ops for w in ws)
    errs = sum(w.errors for w in ws)
    res = {"lang": "python", "pid": os.getpid(), "threads": threads, "seconds": round(el, 1),
           "ops": ops, "errors": errs, "ops_per_s": round(ops / el, 1)}
    msgs = [m for w in ws for m in w.msgs][:5]
    if msgs:
        res["first_errors"] = msgs
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
