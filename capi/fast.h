/* The lookup fast path (fast.c): internal to libdrydb. */
#ifndef DRYDB_FAST_H
#define DRYDB_FAST_H
#include <stdint.h>
#include <stddef.h>

/* Bit layout of handles (handles.go takes its constants from here). */
#define DRYDB__H_MAGIC       0xDull /* bits 60..63 */
#define DRYDB__H_SLOT_SHIFT  4      /* slot index in bits 4..31 */
#define DRYDB__H_SLOT_BITS   28
#define DRYDB__H_CHUNK_BITS  12     /* slots come in chunks of 4096 */
#define DRYDB__H_MAX_CHUNKS  4096
#define DRYDB__H_KIND_TABLE  2      /* kind in bits 0..3 */

/* drydb__get_word / drydb__count_word results that are not answers */
#define DRYDB__WORD_MISSING  (~0ull)
#define DRYDB__WORD_ASK      (~0ull - 1)
/* drydb__get_many_copy: the values did not fit the buffer (never a status) */
#define DRYDB__NOT_COPIED    (-1)

#define DRYDB__MAX_BATCH     ((size_t)1 << 24) /* drydb_get_many's n */

/* Page layout (docs/FORMAT.md; a Go test checks them against the engine). */
#define DRYDB__PAGE_HDR   16
#define DRYDB__PG_TYPE    4      /* low 4 bits the type, high bits leaf8 flags */
#define DRYDB__PG_LEVEL   5
#define DRYDB__PG_N       6
#define DRYDB__PG_PREV    8      /* u32 previous leaf, 0 = none */
#define DRYDB__PG_NEXT    12     /* u32 next leaf, 0 = none */
#define DRYDB__PG_SCALE   8      /* branch8: u64 interpolation factor, 0 = none */
#define DRYDB__LEAF8_SEQ   0x10  /* leaf8 flag: key i = key 0 + i */
#define DRYDB__LEAF8_FIXED 0x20  /* leaf8 flag: entry i at slot[0] - i*(P - slot[0]) */
#define DRYDB__PG_HEADS   0x40   /* leaf/branch flag: prefix + heads after the slots */
#define DRYDB__HEADS_HDR  4      /* prefix u16 + zero u16 */
#define DRYDB__HEAD_SIZE  4      /* head u32, big endian */
#define DRYDB__LEAF_HDR   4      /* klen u16 + vlen u16 */
#define DRYDB__LEAF8_HDR  2      /* vlen u16 */
#define DRYDB__BRANCH_HDR 18     /* child u64 + before u64 + klen u16 */
#define DRYDB__OVERFLOW   0x8000 /* in vlen */

/* What engine.Layout describes. */
struct drydb__layout {
    const uint8_t *data;
    const uint64_t *verified;
    uint64_t root, depth, first, last, rows;
    uint32_t pshift;
    int key8;
    int kind;
    int nparts;         /* composite keys: the kinds of the parts */
    uint8_t parts[16];  /* DRYDB_MAX_PARTS */
};

struct drydb__ft;

/* Registers a table handle for the fast path; NULL when it cannot (then
 * every call goes to Go). Close before the image is unmapped. */
struct drydb__ft *drydb__fast_open(uint64_t handle, const struct drydb__layout *l);
void drydb__fast_close(struct drydb__ft *ft);
#endif
