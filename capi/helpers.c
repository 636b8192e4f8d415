/* The parts of libdrydb that need no Go: status text, the thread-local error
 * detail and value buffer, version, free. Keeping them in C means
 * drydb_errmsg() and drydb_strerror() cost no crossing into the Go runtime,
 * and thread-local storage is the C thread's own (a Go goroutine serving a
 * C call runs on the calling thread, so Go writes land in the right slot). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "drydb.h"
#include "cdefs.h"

const uint8_t drydb__empty[1] = {0};

#define ERRMSG_CAP 4096

struct tls {
    char errmsg[ERRMSG_CAP];
    uint8_t *buf;
    size_t cap;
};

static __thread struct tls *tls_state;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

/* Free a thread's state when it exits, so threads that come and go do not
 * leak their value buffers. */
static void tls_destroy(void *p) {
    struct tls *t = p;
    if (t) {
        free(t->buf);
        free(t);
    }
}

static void tls_init(void) { pthread_key_create(&tls_key, tls_destroy); }

static struct tls *tls_get(void) {
    struct tls *t = tls_state;
    if (t) return t;
    pthread_once(&tls_once, tls_init);
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    tls_state = t;
    pthread_setspecific(tls_key, t);
    return t;
}

void drydb__set_errmsg(const char *msg, size_t n) {
    struct tls *t = tls_get();
    if (!t) return;
    if (n >= ERRMSG_CAP) n = ERRMSG_CAP - 1;
    memcpy(t->errmsg, msg, n);
    t->errmsg[n] = 0;
}

uint8_t *drydb__tls_reserve(size_t n) {
    struct tls *t = tls_get();
    if (!t) return NULL;
    if (n == 0) n = 1;
    if (n > t->cap) {
        size_t c = t->cap ? t->cap : 256;
        while (c < n) c *= 2;
        /* realloc would copy contents nobody needs */
        uint8_t *p = malloc(c);
        if (!p) return NULL;
        free(t->buf);
        t->buf = p;
        t->cap = c;
    }
    return t->buf;
}

const char *drydb_errmsg(void) {
    struct tls *t = tls_get();
    return t ? t->errmsg : "drydb: out of memory";
}

const char *drydb_strerror(int code) {
    switch (code) {
    case DRYDB_OK: return "success";
    case DRYDB_NOTFOUND: return "not found";
    case DRYDB_INVALID: return "invalid argument";
    case DRYDB_CLOSED: return "handle closed";
    case DRYDB_BADHANDLE: return "bad handle";
    case DRYDB_CORRUPT: return "corrupt database file";
    case DRYDB_VERSION: return "unsupported file format version";
    case DRYDB_KEYTOOLARGE: return "key too large";
    case DRYDB_DUPLICATE: return "duplicate key";
    case DRYDB_BADKEY: return "key does not fit the key kind";
    case DRYDB_IO: return "I/O error";
    case DRYDB_NOMEM: return "out of memory";
    case DRYDB_NOTABLE: return "no such table";
    case DRYDB_NOINDEX: return "no such index";
    case DRYDB_FILTER: return "unknown page filter";
    case DRYDB_TOOLARGE: return "too large";
    case DRYDB_INTERNAL: return "internal error";
    }
    return "unknown status";
}

void drydb_version(int *major, int *minor, int *patch) {
    if (major) *major = DRYDB_VERSION_MAJOR;
    if (minor) *minor = DRYDB_VERSION_MINOR;
    if (patch) *patch = DRYDB_VERSION_PATCH;
}

const char *drydb_version_string(void) { return DRYDB_VERSION_STRING; }

void drydb_free(void *p) { free(p); }
