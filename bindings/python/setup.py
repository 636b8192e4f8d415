"""Build hook: put the native library (libdrydb) inside the package.

The library comes, in this order, from:
  1. DRYDB_BUILD_LIBRARY (a path to a built library), copied as is: how
     `make dist` (scripts/python-dist) makes the binary wheels;
  2. the drydb checkout this package sits in (bindings/python of it), or the
     sources an sdist carries (native/): `make lib` there, which needs Go
     and a C compiler (cgo);
  3. drydb/<library> already present.
Without any of them the build stops with a message saying what to do (a
missing Go is the usual case: an sdist on a machine with no wheel for it).

Wheels are platform-specific but Python-version-independent
(py3-none-<platform>): the package has no Python extension, but it carries
a native library. DRYDB_WHEEL_PLAT sets the platform tag (make dist sets
the manylinux tag it measured from the library); without it the tag is this
machine's (linux_x86_64), right for a wheel built and used here.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))
NATIVE = os.path.join(HERE, "native")  # an sdist's copy of the sources
# What `make lib` needs from the repository, copied into an sdist's native/.
NATIVE_FILES = ["Makefile", "VERSION", "LICENSE", "go.mod", "go.sum", "capi", "engine", "internal", "include",
                "third_party"]
# The library's file name where the wheel is built for: DRYDB_WHEEL_PLAT
# names the target when cross-packaging (a win_amd64 wheel built on Linux).
_PLAT = os.environ.get("DRYDB_WHEEL_PLAT") or sysconfig.get_platform()
LIBNAME = ("drydb.dll" if _PLAT.startswith("win") else
           "libdrydb.dylib" if _PLAT.startswith("macosx") else "libdrydb.so")
TARGET = os.path.join(HERE, "drydb", LIBNAME)

# pyproject.toml names LICENSE as the license file; in a checkout it is the
# repository's (one copy), brought here before setuptools looks for it.
if os.path.isfile(os.path.join(CHECKOUT, "LICENSE")):
    shutil.copyfile(os.path.join(CHECKOUT, "LICENSE"), os.path.join(HERE, "LICENSE"))


def _fail(msg):
    # A message, not a traceback: pip shows it as the reason the build failed.
    sys.stderr.write("\ndrydb: " + msg + "\n\n")
    raise SystemExit(1)


def _sources():
    """The directory holding drydb's Go sources and Makefile, or None."""
    for d in (CHECKOUT, NATIVE):
        if os.path.isfile(os.path.join(d, "capi", "main.go")) and os.path.isfile(os.path.join(d, "Makefile")):
            return d
    return None


def _build_from(src):
    missing = [t for t in ("go", "make") if shutil.which(t) is None]
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        missing.append("a C compiler (cc)")
    if missing:
        _fail("building the native library from source needs Go (1.25 or later, https://go.dev/dl), "
              "make and a C compiler for cgo; not found on PATH: %s.\n"
              "Install them, or install a binary wheel instead (pip install --only-binary :all: drydb), "
              "or point DRYDB_BUILD_LIBRARY at a built %s." % (", ".join(missing), LIBNAME))
    build = os.path.join(src, "build", "python")
    r = subprocess.run(["make", "-C", src, "lib", "BUILD=" + build])
    if r.returncode != 0:
        _fail("`make -C %s lib` failed (exit status %d): see its output above" % (src, r.returncode))
    return os.path.join(build, LIBNAME)


def _find_library():
    env = os.environ.get("DRYDB_BUILD_LIBRARY")
    if env:
        if not os.path.isfile(env):
            _fail("DRYDB_BUILD_LIBRARY=%s: no such file" % env)
        return env
    src = _sources()
    if src:
        return _build_from(src)
    if os.path.isfile(TARGET):
        return TARGET
    _fail("cannot find or build %s: set DRYDB_BUILD_LIBRARY to a built library, or build from a "
          "drydb checkout or sdist with Go installed" % LIBNAME)


class BuildPy(build_py):
    def run(self):
        src = _find_library()
        for name in ("libdrydb.so", "drydb.dll", "libdrydb.dylib"):
            for d in (os.path.join(HERE, "drydb"), os.path.join(self.build_lib, "drydb")):
                stale = os.path.join(d, name)
                if name != LIBNAME and os.path.exists(stale):
                    os.remove(stale)  # one library per wheel: the target's
        if os.path.abspath(src) != os.path.abspath(TARGET):
            shutil.copyfile(src, TARGET)
        super().run()


class Sdist(sdist):
    """An sdist carries the Go sources (native/) to build the library from."""

    def run(self):
        if os.path.isfile(os.path.join(CHECKOUT, "capi", "main.go")):
            shutil.rmtree(NATIVE, ignore_errors=True)
            for name in NATIVE_FILES:
                s, d = os.path.join(CHECKOUT, name), os.path.join(NATIVE, name)
                if os.path.isdir(s):
                    shutil.copytree(s, d, ignore=shutil.ignore_patterns("*_test.go", "testdata"))
                else:
                    os.makedirs(NATIVE, exist_ok=True)
                    shutil.copyfile(s, d)
        elif not os.path.isdir(NATIVE):
            _fail("an sdist is made from a drydb checkout (its Go sources go into native/)")
        super().run()


class BinaryDistribution(Distribution):
    # The library makes the wheel platform-specific (platlib, not purelib).
    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildPy, "sdist": Sdist}
try:
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        def get_tag(self):
            return "py3", "none", _PLAT.replace("-", "_").replace(".", "_")

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:  # pragma: no cover
    pass

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
