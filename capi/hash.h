/* The hash index's key hash (format.HashKey, engine/internal/format/hash.go):
 * internal to libdrydb; tests/c/test_vectors.c checks it against the golden
 * values in tests/vectors/hash.json, which the Go engine's test checks too. */
#ifndef DRYDB_HASH_H
#define DRYDB_HASH_H
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define DRYDB__HASH_M1 0x9E3779B97F4A7C15ull
#define DRYDB__HASH_M2 0xD6E8FEB86659FD93ull
#define DRYDB__HASH_HDR_SLOTS 2 /* format.HashHeaderSlots */

/* the high and low halves of a 64x64-bit product */
static inline uint64_t drydb__mul_hi(uint64_t a, uint64_t b, uint64_t *lo) {
#ifdef __SIZEOF_INT128__
    unsigned __int128 p = (unsigned __int128)a * b;
    *lo = (uint64_t)p;
    return (uint64_t)(p >> 64);
#else
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    *lo = (mid << 32) | (uint32_t)ll;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

static inline uint64_t drydb__hash_mix(uint64_t x) {
    uint64_t lo, hi = drydb__mul_hi(x, DRYDB__HASH_M2, &lo);
    return hi ^ lo;
}

/* format.HashKey */
static inline uint64_t drydb__hash_key(const uint8_t *k, size_t n) {
    uint64_t h = (uint64_t)n * DRYDB__HASH_M1;
    for (; n >= 8; n -= 8, k += 8) {
        uint64_t w;
        memcpy(&w, k, 8); /* little-endian hosts (fast.c's u64le) */
        h = drydb__hash_mix(h ^ w);
    }
    if (n > 0) {
        uint64_t w = 0;
        for (size_t i = n; i-- > 0;) w = w << 8 | k[i];
        h = drydb__hash_mix(h ^ w);
    }
    return drydb__hash_mix(h ^ (h >> 29));
}

#endif
