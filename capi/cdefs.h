/* Internal header of the Go side of libdrydb. It sees the public types and
 * constants but not the public prototypes: cgo declares the exported
 * functions itself (without const), and the two declarations would clash. */
#ifndef DRYDB_CDEFS_H
#define DRYDB_CDEFS_H
#define DRYDB__TYPES_ONLY
#include "drydb.h"

/* The C that cgo generates from the Go files' preambles (the wrappers of the
 * Go exports, each reached only on the way into Go, and the stubs of Go's
 * calls into C) is compiled for size: 2 KB of the stripped library's
 * budget (670 bytes). This library's own C files define DRYDB__OWN_C first
 * and keep the package's -O2. (The other way round, -Os for the package
 * and this pragma asking for O2 in the fast paths, did not give O2 back:
 * the columnar get_many measured 1.5x slower.) The own files' loops and jump
 * targets are not padded to 16 bytes (cgo refuses -falign-* in #cgo CFLAGS):
 * 1.9 KB of the budget; the C driver's gets, scans, counts and opens on
 * every shape, alternating the two libraries 8 times, measured 0.78-1.10x
 * the padded build's time (median 0.99x: noise). */
#if !defined(DRYDB__OWN_C) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("Os")
#elif defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("align-loops=1", "align-jumps=1")
#endif

#ifdef _WIN32
#define DRYDB__HIDDEN /* a DLL exports only what is marked dllexport */
#else
#define DRYDB__HIDDEN __attribute__((visibility("hidden")))
#endif

/* Run once per open, load or error, never per lookup: compiled for size
 * (the stripped library has a budget), kept out of the hot code's pages. */
#define DRYDB__COLD __attribute__((cold))

/* Thread-locals the library reads on every call: initial-exec, so an access
 * is one load, not a call (Windows: mingw's emulated TLS is a call anyway). */
#ifndef _WIN32
#define DRYDB__TLS_IE __attribute__((tls_model("initial-exec")))
#else
#define DRYDB__TLS_IE
#endif

/* Non-NULL pointer returned for zero-length data. */
DRYDB__HIDDEN extern const uint8_t drydb__empty[1];

/* Store the calling thread's failure detail (copied, truncated). */
DRYDB__HIDDEN void drydb__set_errmsg(const char *msg, size_t n);

/* The calling thread's value buffer (drydb_get and friends): at least n
 * bytes, contents not preserved, valid until the next call on this thread.
 * NULL when out of memory. */
DRYDB__HIDDEN uint8_t *drydb__tls_reserve(size_t n);
/* The calling thread's scratch (colfast.c's sorted batches): at least n
 * bytes, contents not preserved, kept until the thread exits; NULL when
 * out of memory. */
DRYDB__HIDDEN uint8_t *drydb__tls_scratch(size_t n);

/* What a C file of the library exports (capi/exports.map lists it too). */
#ifdef _WIN32
#define DRYDB__EXPORT __declspec(dllexport)
#else
#define DRYDB__EXPORT __attribute__((visibility("default")))
#endif

#endif
