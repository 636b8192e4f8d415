"""The Unicode demo through the Python binding (bindings/python)."""
import sys

import drydb

path = sys.argv[1] if len(sys.argv) > 1 else "unicode.drydb"
with drydb.open(path) as db:
    t = db["unicode"]
    for cp in (0x41, 0x3B1, 0x1F600, 0x10FFFF):
        print("Python: U+%04X -> %s" % (cp, t.get(cp, b"(not assigned)").decode()))
    names = t.get_many(range(0x2654, 0x2660))   # chess pieces, one library call
    print("Python: U+2654..U+265F:", ", ".join(n.decode() for n in names))
    print("Python: %d code points below U+0100, %d in all" % (t.count(0, 0x100), len(t)))
    by_cat = t.index("by_category")
    print("Python: %d currency symbols (Sc)" % by_cat.count("Sc", "Sc", inclusive=(True, True)))
    by_name = t.index("by_name")
    for cp, name in by_name.prefix("SNOW"):
        print("Python: %s U+%04X %s" % (chr(cp), cp, name.decode()))
