// drydb.h from C++ (issue 18): keys and values go in as const void *, so
// char *, std::string::data() and std::vector<char>::data() are passed
// without a cast; built with -Wall -Wextra -Werror -pedantic, so a cast the
// header forced (or an old-style one) fails the build, not just a warning.
// Builds a database in memory, then reads it through every call that takes a
// key or value, checking each answer.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "drydb.h"

static void fail(int line, const char *what, int rc) {
    std::fprintf(stderr, "test_cxx.cpp:%d: %s: %d (%s) %s\n", line, what, rc, drydb_strerror(rc), drydb_errmsg());
    std::exit(1);
}
#define OK(call) do { int rc_ = (call); if (rc_ != DRYDB_OK) fail(__LINE__, #call, rc_); } while (0)
#define CHECK(c) do { if (!(c)) fail(__LINE__, #c, 0); } while (0)

static std::string key_of(int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "k%03d", i);
    return buf;
}

int main() {
    drydb_builder *b = nullptr;
    drydb_tbuilder *tb = nullptr;
    drydb_ibuilder *ib = nullptr;
    OK(drydb_builder_new(0, 0, &b));
    const std::string creator = "test_cxx";
    OK(drydb_builder_set_meta(b, "creator", 7, creator.data(), creator.size()));
    for (int compression : {DRYDB_COMPRESS_NONE, DRYDB_COMPRESS_ZSTD}) {
        const char *name = compression == DRYDB_COMPRESS_NONE ? "plain" : "zstd";
        OK(drydb_builder_table(b, name, DRYDB_KEY_STRING, nullptr, 0, compression, 0, 0, &tb));
        OK(drydb_builder_index(tb, "by_len", 0, DRYDB_KEY_STRING, nullptr, 0, &ib));
        for (int i = 0; i < 100; i++) {
            std::string k = key_of(i), v = "value " + std::to_string(i);
            OK(drydb_builder_append(tb, k.data(), k.size(), v.c_str(), v.size()));
            std::string ik = std::string(static_cast<size_t>(1 + i % 3), 'x');
            OK(drydb_builder_index_add(ib, ik.data(), ik.size(), k.data(), k.size()));
        }
    }
    uint8_t *img = nullptr;
    size_t len = 0;
    OK(drydb_builder_build_memory(b, &img, &len));
    OK(drydb_builder_free(b));

    drydb_db *db = nullptr;
    OK(drydb_open_memory(img, len, 0, 0, &db));
    const uint8_t *v = nullptr;
    size_t vl = 0;
    OK(drydb_meta_get(db, "creator", 7, &v, &vl));
    CHECK(std::string(reinterpret_cast<const char *>(v), vl) == creator);

    for (const char *name : {"plain", "zstd"}) {
        drydb_table *t = nullptr;
        OK(drydb_table_open(db, name, &t));
        std::string k = key_of(42);
        OK(drydb_get(t, k.data(), k.size(), &v, &vl));
        CHECK(std::string(reinterpret_cast<const char *>(v), vl) == "value 42");
        const char *missing = "nope";
        CHECK(drydb_get(t, missing, 4, &v, &vl) == DRYDB_NOTFOUND);

        std::vector<char> keys;
        size_t klens[2];
        for (int i : {7, 8}) {
            std::string s = key_of(i);
            keys.insert(keys.end(), s.begin(), s.end());
            klens[i - 7] = s.size();
        }
        const uint8_t *vals[2];
        size_t vlens[2];
        uint8_t found[2];
        OK(drydb_get_many(t, 2, keys.data(), klens, vals, vlens, found));
        CHECK(found[0] && found[1] && vlens[1] == 7);

        std::string lo = key_of(10), hi = key_of(20);
        uint64_t n = 0;
        OK(drydb_count(t, lo.data(), lo.size(), DRYDB_INCLUSIVE, hi.data(), hi.size(), DRYDB_EXCLUSIVE, &n));
        CHECK(n == 10);
        const uint8_t *ks[16];
        size_t kls[16], got = 0;
        OK(drydb_range(t, lo.data(), lo.size(), DRYDB_INCLUSIVE, hi.data(), hi.size(), DRYDB_EXCLUSIVE, 0, 16, ks, kls,
                       nullptr, nullptr, &got));
        CHECK(got == 10 && std::string(reinterpret_cast<const char *>(ks[9]), kls[9]) == key_of(19));
        OK(drydb_rank(t, hi.data(), hi.size(), &n));
        CHECK(n == 20);

        drydb_cursor *c = nullptr;
        OK(drydb_cursor_open(t, lo.c_str(), lo.size(), DRYDB_INCLUSIVE, nullptr, 0, DRYDB_UNBOUNDED, &c));
        OK(drydb_cursor_seek(c, hi.data(), hi.size()));
        OK(drydb_cursor_seek_exact(c, lo.data(), lo.size()));
        OK(drydb_cursor_close(c));
        OK(drydb_cursor_open_prefix(t, "k01", 3, &c));
        size_t rows = 0;
        while (drydb_cursor_next(c) == DRYDB_OK) rows++;
        CHECK(rows == 10);
        OK(drydb_cursor_close(c));

        drydb_index *ix = nullptr;
        OK(drydb_index_open(t, "by_len", &ix));
        const uint8_t *pk = nullptr;
        size_t pkl = 0;
        std::string ik = "xx";
        OK(drydb_index_get(ix, ik.data(), ik.size(), &pk, &pkl, &v, &vl));
        CHECK(std::string(reinterpret_cast<const char *>(pk), pkl) == key_of(1));
        OK(drydb_index_count(ix, ik.data(), ik.size(), DRYDB_INCLUSIVE, ik.data(), ik.size(), DRYDB_INCLUSIVE, &n));
        CHECK(n == 33);
        OK(drydb_index_cursor_open(ix, ik.data(), ik.size(), DRYDB_INCLUSIVE, nullptr, 0, DRYDB_UNBOUNDED, &c));
        OK(drydb_cursor_close(c));
        OK(drydb_index_cursor_open_prefix(ix, "x", 1, &c));
        OK(drydb_cursor_close(c));
    }
    OK(drydb_close(db));
    drydb_free(img);
    std::puts("test_cxx: ok");
    return 0;
}
