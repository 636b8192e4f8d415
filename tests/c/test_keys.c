/* The header's inline key helpers against the Go encoder's golden vectors
 * (tests/vectors/keys.json, written by engine/keyenc's TestGoldenKeys), plus
 * order properties. A minimal JSON reader is included: strings keep their
 * length (the vectors contain \u0000), numbers keep their text (int64
 * extremes do not survive a double). */
#include <ctype.h>
#include <math.h>

#include "minijson.h"
#include "testutil.h"

static void uuid_parse(const char *s, uint8_t out[16]) {
    char hex[33];
    size_t n = 0;
    for (; *s && n < 32; s++)
        if (*s != '-') hex[n++] = *s;
    hex[n] = 0;
    CHECK(n == 32 && unhex(hex, out) == 16);
}

static void ulid_parse(const char *s, uint8_t out[16]) {
    static const char *alpha = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    CHECK(strlen(s) == 26);
    memset(out, 0, 16);
    for (int i = 0; i < 26; i++) {
        const char *p = strchr(alpha, toupper((unsigned char)s[i]));
        CHECK(p);
        unsigned d = (unsigned)(p - alpha), carry = d;
        for (int j = 15; j >= 0; j--) { /* out = out * 32 + d */
            unsigned x = (unsigned)out[j] * 32 + carry;
            out[j] = (uint8_t)x;
            carry = x >> 8;
        }
    }
}

static double fval(jv *v) {
    if (v->type == J_STR) {
        if (!strcmp(v->s, "inf") || !strcmp(v->s, "+inf")) return INFINITY;
        if (!strcmp(v->s, "-inf")) return -INFINITY;
        if (!strcmp(v->s, "-0")) return -0.0;
        return strtod(v->s, NULL);
    }
    return strtod(v->s, NULL);
}

static void check_hex(const uint8_t *got, size_t n, const char *hex, const char *what) {
    uint8_t want[512];
    size_t wn = unhex(hex, want);
    if (wn != n || memcmp(got, want, n) != 0) {
        fprintf(stderr, "%s: encoding differs from the Go golden vector %s\n", what, hex);
        exit(1);
    }
}

static int kind_of(const char *name) {
    const char *names[] = {"bytes", "string", "int64", "uint64", "float64", "uuid", "ulid"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(names[i], name)) return i;
    fprintf(stderr, "unknown part kind %s\n", name);
    exit(1);
}

int main(void) {
    char *text = tu_read_vector("keys.json");
    jv *root = jparse(text);
    int checked = 0;
    uint8_t b[8], u[16], o[16];

    jv *a = jget(root, "int64");
    CHECK(a && a->n > 0);
    for (size_t i = 0; i < a->n; i++, checked++) {
        jv *e = a->items[i];
        int64_t x = strtoll(jget(e, "value")->s, NULL, 10);
        drydb_key_int64(x, b);
        check_hex(b, 8, jget(e, "hex")->s, jget(e, "value")->s);
        CHECK(drydb_key_to_int64(b) == x);
    }
    a = jget(root, "uint64");
    CHECK(a && a->n > 0);
    for (size_t i = 0; i < a->n; i++, checked++) {
        jv *e = a->items[i];
        uint64_t x = strtoull(jget(e, "value")->s, NULL, 10);
        drydb_key_uint64(x, b);
        check_hex(b, 8, jget(e, "hex")->s, jget(e, "value")->s);
        CHECK(drydb_key_to_uint64(b) == x);
    }
    a = jget(root, "float64");
    CHECK(a && a->n > 0);
    for (size_t i = 0; i < a->n; i++, checked++) {
        jv *e = a->items[i];
        double x = fval(jget(e, "value"));
        drydb_key_float64(x, b);
        check_hex(b, 8, jget(e, "hex")->s, jget(e, "value")->s);
        double back = drydb_key_to_float64(b);
        CHECK(back == x); /* -0 comes back as +0, which compares equal */
        CHECK(!signbit(back) || x != 0);
    }
    a = jget(root, "uuid");
    CHECK(a && a->n > 0);
    for (size_t i = 0; i < a->n; i++, checked++) {
        uuid_parse(jget(a->items[i], "value")->s, u);
        drydb_key_uuid(u, o);
        check_hex(o, 16, jget(a->items[i], "hex")->s, "uuid");
    }
    a = jget(root, "ulid");
    CHECK(a && a->n > 0);
    for (size_t i = 0; i < a->n; i++, checked++) {
        ulid_parse(jget(a->items[i], "value")->s, u);
        drydb_key_ulid(u, o);
        check_hex(o, 16, jget(a->items[i], "hex")->s, "ulid");
    }
    a = jget(root, "composite");
    CHECK(a && a->n > 0);
    for (size_t i = 0; i < a->n; i++, checked++) {
        jv *parts = jget(a->items[i], "parts"), *vals = jget(a->items[i], "values");
        /* fewer values than parts: the key prefix of a tuple prefix */
        CHECK(vals->n <= parts->n);
        uint8_t key[512], tmp[256];
        size_t pos = 0, measure = 0;
        for (size_t j = 0; j < vals->n; j++) {
            jv *v = vals->items[j];
            switch (kind_of(parts->items[j]->s)) {
            case DRYDB_KEY_BYTES: {
                size_t n = unhex(jget(v, "hex")->s, tmp);
                pos = drydb_key_append_bytes(key, sizeof key, pos, tmp, n);
                measure = drydb_key_append_bytes(NULL, 0, measure, tmp, n);
                break;
            }
            case DRYDB_KEY_STRING: /* may hold NUL bytes: use the length */
                pos = drydb_key_append_bytes(key, sizeof key, pos, v->s, v->n);
                measure = drydb_key_append_bytes(NULL, 0, measure, v->s, v->n);
                if (!memchr(v->s, 0, v->n)) {
                    size_t p2 = drydb_key_append_string(NULL, 0, 0, v->s);
                    CHECK(p2 == drydb_key_append_bytes(NULL, 0, 0, v->s, v->n));
                }
                break;
            case DRYDB_KEY_INT64:
                pos = drydb_key_append_int64(key, sizeof key, pos, strtoll(v->s, NULL, 10));
                measure = drydb_key_append_int64(NULL, 0, measure, 0);
                break;
            case DRYDB_KEY_UINT64:
                pos = drydb_key_append_uint64(key, sizeof key, pos, strtoull(v->s, NULL, 10));
                measure = drydb_key_append_uint64(NULL, 0, measure, 0);
                break;
            case DRYDB_KEY_FLOAT64:
                pos = drydb_key_append_float64(key, sizeof key, pos, fval(v));
                measure = drydb_key_append_float64(NULL, 0, measure, 0);
                break;
            case DRYDB_KEY_UUID:
                uuid_parse(v->s, u);
                pos = drydb_key_append_uuid(key, sizeof key, pos, u);
                measure = drydb_key_append_uuid(NULL, 0, measure, u);
                break;
            case DRYDB_KEY_ULID:
                ulid_parse(v->s, u);
                pos = drydb_key_append_ulid(key, sizeof key, pos, u);
                measure = drydb_key_append_ulid(NULL, 0, measure, u);
                break;
            }
        }
        CHECK(pos == measure && pos <= sizeof key);
        check_hex(key, pos, jget(a->items[i], "hex")->s, "composite");
    }
    jfree(root);
    free(text);

    /* order: encodings compare as the values do */
    int64_t iv[] = {INT64_MIN, -1000, -1, 0, 1, 255, 256, INT64_MAX};
    for (size_t i = 1; i < sizeof iv / sizeof iv[0]; i++) {
        uint8_t x[8], y[8];
        drydb_key_int64(iv[i - 1], x);
        drydb_key_int64(iv[i], y);
        CHECK(memcmp(x, y, 8) < 0);
    }
    double fv[] = {-INFINITY, -1e300, -2.5, -1, -5e-324, 0, 5e-324, 1, 2.5, 1e300, INFINITY};
    for (size_t i = 1; i < sizeof fv / sizeof fv[0]; i++) {
        uint8_t x[8], y[8];
        drydb_key_float64(fv[i - 1], x);
        drydb_key_float64(fv[i], y);
        CHECK(memcmp(x, y, 8) < 0);
    }
    /* a tuple prefix is a key prefix; a too-small buffer is reported */
    uint8_t k1[32], k2[32];
    size_t n1 = drydb_key_append_string(k1, sizeof k1, 0, "ab");
    size_t n2 = drydb_key_append_string(k2, sizeof k2, 0, "ab");
    n2 = drydb_key_append_int64(k2, sizeof k2, n2, 5);
    CHECK(n2 > n1 && memcmp(k1, k2, n1) == 0);
    uint8_t small[4];
    CHECK(drydb_key_append_string(small, sizeof small, 0, "abcdef") == 8);

    printf("test_keys: ok (%d golden vectors)\n", checked);
    return 0;
}
