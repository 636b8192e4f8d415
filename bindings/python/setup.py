"""Build hook: put libdrydb.so inside the package.

The library comes, in this order, from:
  1. DRYDB_BUILD_LIBRARY (a path to a built libdrydb.so), copied as is;
  2. the repository this package sits in (bindings/python of a drydb checkout):
     `make lib` there, then build/libdrydb.so;
  3. drydb/libdrydb.so already present (an sdist that carries it).
Without any of them the build fails with a message saying what to do.
The wheel is platform-specific (py3-none-<platform>): the package has no
Python extension, but it carries a native library.
"""

import os
import shutil
import subprocess
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGET = os.path.join(HERE, "drydb", "libdrydb.so")

# pyproject.toml names LICENSE as the license file; in a checkout it is the
# repository's (one copy), brought here before setuptools looks for it.
if os.path.isfile(os.path.join(ROOT, "LICENSE")):
    shutil.copyfile(os.path.join(ROOT, "LICENSE"), os.path.join(HERE, "LICENSE"))


def _find_library():
    env = os.environ.get("DRYDB_BUILD_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise SystemExit("DRYDB_BUILD_LIBRARY=%s: no such file" % env)
        return env
    if os.path.isfile(os.path.join(ROOT, "capi", "main.go")):
        if shutil.which("make") and os.path.isfile(os.path.join(ROOT, "Makefile")):
            subprocess.run(["make", "-C", ROOT, "lib"], check=True)
            return os.path.join(ROOT, "build", "libdrydb.so")
        go = shutil.which("go")
        if go:
            out = os.path.join(ROOT, "build", "libdrydb.so")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            subprocess.run([go, "build", "-trimpath", "-buildmode=c-shared",
                            "-ldflags=-s -w -extldflags '-Wl,-soname,libdrydb.so.0'",
                            "-o", out, "./capi"], cwd=ROOT, check=True)
            return out
    if os.path.isfile(TARGET):
        return TARGET
    raise SystemExit("drydb: cannot find or build libdrydb.so: set DRYDB_BUILD_LIBRARY to a "
                     "built library, or build from a drydb checkout with Go installed")


class BuildPy(build_py):
    def run(self):
        src = _find_library()
        if os.path.abspath(src) != os.path.abspath(TARGET):
            shutil.copyfile(src, TARGET)
        super().run()


cmdclass = {"build_py": BuildPy}
try:
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:  # pragma: no cover
    pass

setup(cmdclass=cmdclass)
