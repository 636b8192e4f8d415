"""Every library function the Python package calls is declared in the header
that owns it, with the result type the binding reads: drydb.h for the public
ABI, capi/drydb_bindings.h and capi/drydb_columnar.h for the bindings'
private one (drydb__*). ctypes declares no argument types for speed, so the
result type is what the binding relies on: a pointer read as an int, or an
int read as a pointer, would be wrong silently."""
import ctypes
import os
import re

import pytest

import drydb
from drydb import _lib

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
PUBLIC = os.environ.get("DRYDB_HEADER") or os.path.join(ROOT, "include", "drydb.h")
PRIVATE = [os.path.join(ROOT, "capi", h) for h in ("drydb_bindings.h", "drydb_columnar.h")]
PKG = os.path.dirname(drydb.__file__)

# The ctypes result types the binding may read each C result type with.
RESULTS = {
    "int": {ctypes.c_int},
    "uint64_t": {ctypes.c_uint64},
    "const char *": {ctypes.c_char_p},
    "void": {None},
    # the Python objects drydb__py_get* make (new references)
    "void *": {ctypes.py_object, ctypes.c_void_p},
}


def prototypes(path):
    """{function name: C result type} of a header's declarations."""
    with open(path) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    out = {}
    for m in re.finditer(r"^(?:DRYDB_API\s+)?([A-Za-z_][\w ]*?\s*\**)\s*(drydb_\w+)\s*\(", text, re.M):
        ret = re.sub(r"\s+", " ", m.group(1)).strip()
        if ret.startswith("static"):
            continue  # the header's inline helpers, not library functions
        ret = re.sub(r"\s*\*", " *", ret).replace("* *", "**")
        out[m.group(2)] = ret
    return out


@pytest.fixture(scope="module")
def headers():
    missing = [p for p in [PUBLIC] + PRIVATE if not os.path.exists(p)]
    if missing:
        pytest.skip("headers not found (an installed package): %s" % ", ".join(missing))
    public = prototypes(PUBLIC)
    private = {}
    for p in PRIVATE:
        private.update(prototypes(p))
    assert public and private
    return public, private


def _names_in_sources():
    """(C name, ctypes result type) of the calls the package looks up by
    name outside _lib: builder.py's _priv/_merge_call, columnar.py's _fn."""
    out = []
    for fn in sorted(os.listdir(PKG)):
        if not fn.endswith(".py"):
            continue
        with open(os.path.join(PKG, fn)) as f:
            src = f.read()
        for m in re.finditer(r"\b_priv\(\"(\w+)\"([^)]*)\)", src):
            prefix = re.search(r"prefix=\"(\w+)\"", m.group(2))
            out.append(((prefix.group(1) if prefix else "drydb__") + m.group(1), fn))
        out += [("drydb_builder_" + n, fn) for n in re.findall(r"\b_merge_call\(\"(\w+)\"\)", src)]
        out += [("drydb__" + n, fn) for n in re.findall(r"\b_fn\(\"(\w+)\"\)", src)]
    return out


def test_lib_functions_declared(headers):
    public, private = headers
    assert _lib._NAMES
    for name in _lib._NAMES:
        c = "drydb_" + name
        decls = private if name.startswith("_") else public
        assert c in decls, "%s (drydb/_lib.py) is not declared in %s" % (
            c, "capi/drydb_bindings.h" if name.startswith("_") else "drydb.h")
        want = _lib._RESTYPES.get(name, ctypes.c_int)
        assert want in RESULTS[decls[c]], (c, decls[c], want)


def test_named_calls_declared(headers):
    public, private = headers
    found = _names_in_sources()
    assert any(c.startswith("drydb__") for c, _ in found)
    for c, fn in found:
        decls = private if c.startswith("drydb__") else public
        assert c in decls, "%s (drydb/%s) is not declared in its header" % (c, fn)
        # _priv reads every such call's result as a C int
        assert decls[c] == "int", (c, decls[c])


def test_private_calls_not_public(headers):
    public, private = headers
    assert not [n for n in private if n in public]
    assert all(n.startswith("drydb__") for n in private)
