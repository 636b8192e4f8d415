/* Gets of compressed tables racing the page cache's evictions.
 *
 * drydb_get answers a compressed table in C when the key's leaf is decoded
 * in the engine's page cache (capi/fast.c, cache_leaf), and goes to Go,
 * which loads the leaf and may evict another, when it is not. The two sides
 * share each slot's pin, tag and referenced words. Here a cache of 64
 * slots serves tables of a thousand leaves to several threads at once, each
 * reading a window a little larger than the cache, so that C hits and Go
 * evictions of the same slots interleave all the time;
 * every value must still be the right one (a reader that kept a slot being
 * refilled would copy another leaf's bytes). Both leaf layouts: int64 keys
 * (key arrays) and string keys (slotted pages), zstd and S2. */
#include <pthread.h>

#include "testutil.h"

enum { ROWS = 20000, THREADS = 4 };

static long gets_per_thread = 60000;

/* value of row i: 4..27 bytes derived from i, so a wrong leaf shows */
static size_t value_of(uint64_t i, uint8_t *v) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 12345;
    size_t n = 4 + (size_t)(i % 24);
    for (size_t j = 0; j < n; j++) {
        v[j] = (uint8_t)(x >> ((j % 8) * 8)) ^ (uint8_t)j;
    }
    return n;
}

static size_t key_of(int str, uint64_t i, uint8_t *k) {
    if (!str) {
        drydb_key_int64((int64_t)i * 3 - 7000, k);
        return 8;
    }
    return (size_t)snprintf((char *)k, 32, "key:%08llu", (unsigned long long)i);
}

struct job {
    drydb_table *t;
    int str;
    uint64_t seed;
    long wrong;
};

static void *reader(void *arg) {
    struct job *j = arg;
    uint64_t x = j->seed;
    for (long n = 0; n < gets_per_thread; n++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* keys from a window of ~1,500 rows (some 80 leaves, a little more
         * than the cache holds) that slides over the table: most gets hit,
         * and the misses evict slots the other threads are hitting */
        uint64_t i = ((uint64_t)n / 8 + (x >> 33) % 1500) % ROWS;
        uint8_t k[32], want[32];
        size_t kl = key_of(j->str, i, k), wl = value_of(i, want);
        const uint8_t *v;
        size_t vl;
        int rc = drydb_get(j->t, k, kl, &v, &vl);
        if (rc != DRYDB_OK || vl != wl || memcmp(v, want, wl) != 0) j->wrong++;
        if (n % 7 == 0) { /* and a key that is not there */
            uint8_t m[32];
            size_t ml = key_of(j->str, i, m);
            if (j->str) {
                m[ml++] = '!';
            } else {
                drydb_key_int64((int64_t)i * 3 - 6999, m);
            }
            if (drydb_get(j->t, m, ml, &v, &vl) != DRYDB_NOTFOUND) j->wrong++;
        }
    }
    return NULL;
}

int main(void) {
    if (getenv("DRYDB_UNDER_VALGRIND")) gets_per_thread = 3000;
    static const struct {
        const char *name;
        int kind, comp, str;
    } tabs[] = {
        {"zi", DRYDB_KEY_INT64, DRYDB_COMPRESS_ZSTD, 0},
        {"zs", DRYDB_KEY_STRING, DRYDB_COMPRESS_ZSTD, 1},
        {"si", DRYDB_KEY_INT64, DRYDB_COMPRESS_S2, 0},
        {"ss", DRYDB_KEY_STRING, DRYDB_COMPRESS_S2, 1},
    };
    enum { NT = sizeof tabs / sizeof tabs[0] };
    char *path = tu_path("cache_race.drydb");
    drydb_builder *b;
    OK(drydb_builder_new(512, 0, &b));
    for (int t = 0; t < NT; t++) {
        drydb_tbuilder *tb;
        OK(drydb_builder_table(b, tabs[t].name, tabs[t].kind, NULL, 0, tabs[t].comp, 0, 0, &tb));
        for (uint64_t i = 0; i < ROWS; i++) {
            uint8_t k[32], v[32];
            size_t kl = key_of(tabs[t].str, i, k), vl = value_of(i, v);
            OK(drydb_builder_append(tb, k, kl, v, vl));
        }
    }
    OK(drydb_builder_build_file(b, path));
    OK(drydb_builder_free(b));

    drydb_db *db;
    OK(drydb_open(path, 0, 64 * 512, &db)); /* 64 slots: the smallest cache */
    for (int t = 0; t < NT; t++) {
        drydb_table *tt;
        OK(drydb_table_open(db, tabs[t].name, &tt));
        pthread_t th[THREADS];
        struct job jobs[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (struct job){tt, tabs[t].str, 0x1234567u * (uint64_t)(i + 1) + (uint64_t)t, 0};
            CHECK(pthread_create(&th[i], NULL, reader, &jobs[i]) == 0);
        }
        for (int i = 0; i < THREADS; i++) {
            CHECK(pthread_join(th[i], NULL) == 0);
            if (jobs[i].wrong) fprintf(stderr, "table %s, thread %d: %ld wrong answers\n", tabs[t].name, i, jobs[i].wrong);
            CHECK(jobs[i].wrong == 0);
        }
    }
    struct drydb_cache_stats st;
    OK(drydb_cache_stats(db, &st));
    /* both paths ran: hits (most of them C's) and misses that evicted */
    CHECK(st.hits > 0 && st.misses > 0 && st.evictions > 0);
    CHECK(st.bytes <= 64 * 512 + THREADS * 512); /* bounded: slots plus transient pages in flight */
    printf("test_cache_race: ok (%llu hits, %llu misses, %llu evictions)\n", (unsigned long long)st.hits,
           (unsigned long long)st.misses, (unsigned long long)st.evictions);
    OK(drydb_close(db));
    free(path);
    return 0;
}
