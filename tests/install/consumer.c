/* A program built against an installed drydb (scripts/test-install): through
 * find_package(drydb) (shared and static targets) and through pkg-config.
 * Checks the library it runs with is the installed version and reads a
 * shared vector file. */
#include <stdio.h>
#include <string.h>

#include <drydb.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: consumer FILE.drydb\n"); return 2; }
    if (strcmp(drydb_version_string(), DRYDB_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s\n", drydb_version_string(), DRYDB_VERSION_STRING);
        return 1;
    }
    drydb_db *db;
    if (drydb_open(argv[1], 0, 0, &db) != DRYDB_OK) { fprintf(stderr, "%s\n", drydb_errmsg()); return 1; }
    size_t n = 0;
    if (drydb_table_count(db, &n) != DRYDB_OK || n == 0) { fprintf(stderr, "no tables\n"); return 1; }
    printf("drydb %s: %zu tables in %s\n", drydb_version_string(), n, argv[1]);
    drydb_close(db);
    return 0;
}
