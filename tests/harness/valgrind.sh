#!/bin/bash
# gemm_valgrind: runs the given program (the accuracy test, small sizes, CPU mode) under
# valgrind; any memory error (invalid read/write, use of an uninitialised value, bad free)
# makes it fail. Leaks are not checked (cached buffers live until exit on purpose).
# Exit 77 (skipped) when valgrind is not installed.
if ! command -v valgrind >/dev/null; then echo "SKIP: valgrind not installed"; exit 77; fi
exec valgrind --error-exitcode=1 --leak-check=no --track-origins=yes "$@"
