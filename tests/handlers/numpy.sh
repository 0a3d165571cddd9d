#!/bin/bash
# handlers_numpy: numpy_lapack_lite.py under LD_PRELOAD=libcudrop.so must print its PASS line
# (an exit status alone would not do: a handler that exits 0 ends the script with status 0).
# usage: numpy.sh PYTHON SCRIPT LIBCUDROP.so
set -u
python=$1 script=$2 lib=$3
[ -x "$python" ] || { echo "SKIP: no $python"; exit 77; }
"$python" -c 'import numpy' 2>/dev/null || { echo "SKIP: no numpy for $python (apt install python3-numpy)"; exit 77; }
for v in $(env | sed -n 's/^\(CUDROP_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
out=$(LD_PRELOAD=$lib "$python" "$script" 2>&1)
rc=$?
echo "$out"
echo "exit status $rc"
[ "$rc" -eq 0 ] && echo "$out" | grep -q '^numpy_lapack_lite: PASS' || { echo "FAIL"; exit 1; }
