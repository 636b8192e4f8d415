/* A minimal JSON reader for the C tests (header-only, static functions):
 * strings keep their length (the vectors contain \u0000), numbers keep their
 * text (int64 extremes do not survive a double). Not a general parser: it
 * trusts its input, which the tests generate. */
#ifndef DRYDB_MINIJSON_H
#define DRYDB_MINIJSON_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct jv {
    int type;
    char *s;      /* J_STR: decoded bytes (NUL-terminated too); J_NUM: text */
    size_t n;     /* J_STR: length; J_ARR/J_OBJ: number of items */
    char **keys;  /* J_OBJ */
    struct jv **items;
} jv;

static const char *jp;

static inline void ws(void) { while (isspace((unsigned char)*jp)) jp++; }

static inline jv *jnew(int t) { jv *v = calloc(1, sizeof *v); v->type = t; return v; }

static inline void put_utf8(char **o, unsigned c) {
    char *p = *o;
    if (c < 0x80) *p++ = (char)c;
    else if (c < 0x800) { *p++ = (char)(0xC0 | c >> 6); *p++ = (char)(0x80 | (c & 63)); }
    else { *p++ = (char)(0xE0 | c >> 12); *p++ = (char)(0x80 | (c >> 6 & 63)); *p++ = (char)(0x80 | (c & 63)); }
    *o = p;
}

static inline char *jstring(size_t *len) {
    CHECK(*jp == '"');
    jp++;
    char *out = malloc(strlen(jp) + 1), *o = out;
    while (*jp != '"') {
        CHECK(*jp);
        if (*jp != '\\') { *o++ = *jp++; continue; }
        jp++;
        switch (*jp++) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned c;
            CHECK(sscanf(jp, "%4x", &c) == 1);
            jp += 4;
            put_utf8(&o, c); /* no surrogate pairs in the vectors */
            break;
        }
        default: *o++ = jp[-1]; /* \" \\ \/ */
        }
    }
    jp++;
    *o = 0;
    *len = (size_t)(o - out);
    return out;
}

static inline jv *jvalue(void) {
    ws();
    jv *v;
    if (*jp == '{' || *jp == '[') {
        int obj = *jp == '{';
        v = jnew(obj ? J_OBJ : J_ARR);
        jp++;
        ws();
        while (*jp != (obj ? '}' : ']')) {
            v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
            if (obj) {
                size_t kl;
                v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
                v->keys[v->n] = jstring(&kl);
                ws();
                CHECK(*jp == ':');
                jp++;
            }
            v->items[v->n++] = jvalue();
            ws();
            if (*jp == ',') { jp++; ws(); }
        }
        jp++;
    } else if (*jp == '"') {
        v = jnew(J_STR);
        v->s = jstring(&v->n);
    } else if (!strncmp(jp, "null", 4)) { v = jnew(J_NULL); jp += 4; }
    else if (!strncmp(jp, "true", 4)) { v = jnew(J_BOOL); v->n = 1; jp += 4; }
    else if (!strncmp(jp, "false", 5)) { v = jnew(J_BOOL); jp += 5; }
    else {
        const char *s = jp;
        while (*jp && strchr("+-0123456789.eE", *jp)) jp++;
        CHECK(jp > s);
        v = jnew(J_NUM);
        v->s = malloc((size_t)(jp - s) + 1); /* strndup: not in mingw-w64 */
        CHECK(v->s != NULL);
        memcpy(v->s, s, (size_t)(jp - s));
        v->s[jp - s] = 0;
    }
    return v;
}

static inline void jfree(jv *v) {
    for (size_t i = 0; i < v->n && (v->type == J_ARR || v->type == J_OBJ); i++) {
        jfree(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->s);
    free(v);
}

static inline jv *jget(jv *o, const char *k) {
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], k)) return o->items[i];
    return NULL;
}

/* ---- value conversions ---- */
static inline size_t unhex(const char *h, uint8_t *out) {
    size_t n = 0;
    for (; h[0] && h[1]; h += 2) {
        if (*h == '-') { h--; continue; }
        unsigned b;
        CHECK(sscanf(h, "%2x", &b) == 1);
        out[n++] = (uint8_t)b;
    }
    return n;
}

static inline jv *jparse(const char *text) {
    jp = text;
    return jvalue();
}

#endif
