"""Host hazards: threads, fork, multiprocessing (spawn)."""

import multiprocessing
import os
import sys
import threading

import pytest

import drydb

ITEMS = list(range(-500, 500, 2))


def test_eight_threads_every_answer_checked(sample_path):
    errors = []
    with drydb.open(sample_path) as db:
        items, words, pairs = db.table("items", codec=None), db["words"], db["pairs"]

        def worker(t):
            try:
                for i in range(300):
                    k = ITEMS[(t * 1000 + i * 7) % len(ITEMS)]
                    assert items[k] == b'{"n":%d,"cat":"c%d"}' % (k, k % 3)
                    assert items.get(k + 1) is None
                    w = "w%03d" % ((t * 37 + i) % 300)
                    assert words[w] == w.encode() * 3
                    s = "abcde"[i % 5]
                    assert pairs[(s, i % 20)] == b"%s:%d" % (s.encode(), i % 20)
                    if i % 50 == 0:
                        assert items.get_many(ITEMS[:300]) == [items[k] for k in ITEMS[:300]]
                        assert list(items.range(k, k + 10, values=False)) == [x for x in ITEMS if k <= x < k + 10]
                        assert words.count("w1", "w2") == 100
                        assert [pk for pk, _ in db["items"].index("by_cat").range("c1", "c1", inclusive=(True, True))] == [x for x in ITEMS if x % 3 == 1]
            except BaseException as e:  # noqa: BLE001
                errors.append((t, repr(e)))
        ths = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
    assert errors == []


def test_fork_child_gets_clear_error(sample_path):
    with drydb.open(sample_path) as db:
        assert db["words"]["w001"]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never touch pytest machinery
        code = 1
        try:
            db = drydb.open(sample_path)  # opens; the first use raises
            db["words"]
        except drydb.ForkError as e:
            msg = str(e)
            code = 0 if ("spawn" in msg and e.code == drydb.FORKED) else 2
            os.write(w, msg.encode()[:500])
        except BaseException:
            code = 3
        os._exit(code)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    msg = os.read(r, 1000).decode()
    os.close(r)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, msg
    assert "forked" in msg


def _child_reads_inherited(db, q):
    try:
        db["words"].get("w001")
        q.put("no error")
    except drydb.ForkError as e:
        q.put("ForkError: " + str(e))
    except BaseException as e:  # noqa: BLE001
        q.put("other: " + repr(e))


def test_fork_inherited_handle(sample_path):
    if sys.platform != "linux":
        pytest.skip("fork start method")
    ctx = multiprocessing.get_context("fork")
    with drydb.open(sample_path) as db:
        q = ctx.Queue()
        p = ctx.Process(target=_child_reads_inherited, args=(db, q))
        p.start()
        out = q.get(timeout=60)
        p.join(60)
    assert out.startswith("ForkError:") and "spawn" in out


_pool_db = None


def _pool_init(path):
    global _pool_db
    _pool_db = drydb.open(path)


def _pool_task(k):
    return _pool_db["words"].get(k)


def test_fork_pool_initializer_no_respawn(sample_path):
    """A fork Pool whose initializer opens a database, in a parent that used
    drydb: the initializer succeeds, the first task raises ForkError and the
    Pool hands it to the parent (once respawned forever, the parent hung)."""
    if sys.platform != "linux":
        pytest.skip("fork start method")
    with drydb.open(sample_path) as db:
        assert db["words"]["w001"]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2, initializer=_pool_init, initargs=(sample_path,)) as pool:
        with pytest.raises(drydb.ForkError, match="spawn"):
            pool.map_async(_pool_task, ["w001", "w002"]).get(timeout=60)
        workers = {p.pid for p in pool._pool}  # the same two workers: none died
        pool.map_async(str, [1, 2, 3, 4]).get(timeout=60)
        assert {p.pid for p in pool._pool} == workers


def _spawn_worker(path, keys):
    import drydb as d
    with d.open(path) as db:
        t = db["items"]
        return [t.get(k) for k in keys]


def test_spawn_pool(sample_path):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        chunks = [ITEMS[i:i + 50] for i in range(0, 500, 50)]
        results = pool.starmap(_spawn_worker, [(sample_path, c) for c in chunks])
    flat = [v for r in results for v in r]
    assert flat == [{"n": k, "cat": "c%d" % (k % 3)} for k in ITEMS]


def test_library_lazy_and_env_override(tmp_path):
    import subprocess
    # importing loads nothing; library_path() answers before any other use
    # (it loads the library: once None until first use)
    code = ("import drydb, drydb._lib as L; assert not L._loaded; "
            "print(drydb.library_path()); assert L._loaded")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == os.environ["DRYDB_LIBRARY"]
    env = dict(os.environ, DRYDB_LIBRARY=str(tmp_path / "nope.so"))
    out = subprocess.run([sys.executable, "-c", "import drydb; drydb.library_version()"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0 and "LibraryError" in out.stderr and "DRYDB_LIBRARY" in out.stderr


def test_wrong_library_version_refused(tmp_path):
    import shutil
    import subprocess
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "fake.c"
    src.write_text("void drydb_version(int *a, int *b, int *c) { *a = 1; *b = 0; *c = 0; }\n")
    lib = str(tmp_path / "libfake.so")
    subprocess.run([cc, "-shared", "-fPIC", str(src), "-o", lib], check=True)
    env = dict(os.environ, DRYDB_LIBRARY=lib)
    out = subprocess.run([sys.executable, "-c", "import drydb; drydb.open('x')"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0
    assert "LibraryError" in out.stderr and "version 1.0.0" in out.stderr
