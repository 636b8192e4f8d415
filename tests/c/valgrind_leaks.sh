#!/bin/sh
# Runs each test under valgrind's leak checker and fails on any definite
# leak. Memory errors inside the Go runtime are expected here (this build has
# no valgrind annotations); `make test-valgrind` checks errors separately.
set -u
status=0
for t in "$@"; do
    out=$(DRYDB_UNDER_VALGRIND=1 valgrind --leak-check=full --show-leak-kinds=definite "$t" 2>&1)
    if echo "$out" | grep -q "definitely lost: [1-9]"; then
        echo "$out" | grep -A20 "definitely lost in" >&2
        echo "LEAK: $t" >&2
        status=1
    elif ! echo "$out" | grep -q "ok$"; then
        echo "$out" | tail -20 >&2
        echo "FAILED under valgrind: $t" >&2
        status=1
    else
        echo "no definite leaks: $t"
    fi
done
exit $status
