#!/usr/bin/env python3
"""Turn UnicodeData.txt (semicolon separated, hex code points) into a TSV
with a header that `drydb build` reads: cp (decimal), name, category, and
the numeric value where there is one. <control> names are replaced by their
Unicode 1.0 name, and the First/Last range markers are dropped."""
import gzip
import sys

src, dst = sys.argv[1], sys.argv[2]
opener = gzip.open if src.endswith(".gz") else open
with opener(src, "rt", encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
    out.write("cp\tchar\tname\tcategory\tnumeric\n")
    for line in f:
        fields = line.rstrip("\n").split(";")
        cp, name, cat = int(fields[0], 16), fields[1], fields[2]
        if name.startswith("<") and name.endswith(", First>") or name.endswith(", Last>"):
            continue
        if name == "<control>":
            name = fields[10] or "CONTROL-%04X" % cp
        ch = chr(cp) if cat[0] in "LNPSZ" and cat != "Zl" and cat != "Zp" else ""
        out.write(f"{cp}\t{ch}\t{name}\t{cat}\t{fields[8]}\n")
