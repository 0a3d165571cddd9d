#!/usr/bin/env bash
# bench/cudrop-bench --seeds (docs/seeds.md):
#  1. --parse-only on synthetic lines (tests/bench/data/seeds_fixture.txt): the four tables' titles with
#     device, date and CPU BLAS; GEMM rows for s and d with naive (extrapolated), CPU BLAS and both
#     cudrop rows; power rows with both eigenvalues and "agree yes"; LU and Cholesky rows; exit 0;
#     a failed residual check in the lines gives "RESIDUAL CHECK FAILED" and exit 1;
#  2. a measuring run, --quick: with --cpu-only (CPU rows only: naive GEMM, CPU BLAS, CPU power
#     loop; GPU columns "-"), or with --gpu every row filled, every residual check and eigenvalue
#     agreement passing.
# usage: seeds_bench_test.sh SOURCE_DIR BUILD_DIR WORK_DIR [--gpu]
set -euo pipefail
SRC=$1 BUILD=$2 WORK=$3 MODE=${4:-}
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "SKIP: no python3"; exit 77; }
TOOL=$SRC/bench/cudrop-bench
rm -rf "$WORK"; mkdir -p "$WORK"

check() {  # check SEEDS_TXT cpu|gpu|fixture
"$PY" - "$1" "$2" <<'PYEOF'
import re, sys
path, mode = sys.argv[1], sys.argv[2]
text = open(path).read()
print(text)
for title in ("seeds 1: GEMM", "seeds 2: power method", "seeds 3: LU", "seeds 4: Cholesky"):
    heads = [l for l in text.splitlines() if l.startswith(title)]
    assert len(heads) == 1, f"one '{title}' table"
    assert "CPU BLAS " in heads[0] and re.search(r"\d{4}-\d\d-\d\d", heads[0]) and "device " in heads[0], heads[0]
    if mode == "cpu":
        assert "GPU rows skipped" in heads[0], heads[0]
rows = [l.split() for l in text.splitlines() if l.startswith("  ")]
gemm = [r for r in rows if r[0] in ("s", "d") and len(r) > 3 and not r[1].isdigit()]
for p in ("s", "d"):
    mine = [" ".join(r) for r in gemm if r[0] == p]
    assert len(mine) == 4, f"four GEMM rows for {p}: {mine}"
    assert mine[0].startswith(f"{p} naive") and " * " in mine[0] + " ", mine[0]
    assert re.search(r"CPU BLAS +[0-9.]+ +[0-9.]+", mine[1]), mine[1]
    for line in mine[2:]:
        num = r"[0-9.]+(?:e[-+]?[0-9]+)?"  # times print as 0.0024 or 5.8e-05
        filled = re.search(rf"\) +{num} +{num} +{num}x", line) or re.search(rf"only +{num} +{num}", line)
        assert bool(filled) == (mode != "cpu"), f"cudrop GEMM row filled only with a GPU: {line}"
assert "extrapolated: timed on C's first 64 of" in text
power = [r for r in rows if len(r) >= 13 and r[0].isdigit() and r[1].isdigit()]
assert power, "power rows"
for r in power:
    assert re.fullmatch(r"[0-9.]+", r[2]) and re.fullmatch(r"\d+", r[3]), f"CPU time and iterations: {r}"
    assert re.fullmatch(r"[0-9.]+e[+-]\d+", r[9]), f"CPU eigenvalue: {r}"
    if mode == "cpu":
        assert r[4] == "-" and r[10] == "-" and r[-1] == "-", f"no GPU columns: {r}"
    else:
        assert re.fullmatch(r"[0-9.]+", r[4]) and r[12] == "yes", f"cudrop's eigenvalue agrees: {r}"
lu = [r for r in rows if r[0] in ("s", "d") and len(r) >= 9 and r[1].isdigit() and r[2] != "lib" and r[-1].endswith("x")
      and len(r) == 9]
chol = [r for r in rows if r[0] in ("s", "d") and len(r) >= 10 and r[1].isdigit() and r[2].isdigit()]
lib = [r for r in rows if len(r) > 2 and r[2] == "lib"]
if mode == "cpu":
    assert not lu and not chol and not lib, "no GPU rows without a GPU"
else:
    assert lu and chol and lib, "LU and Cholesky rows"
    assert len({r[2] for r in chol}) >= 2, "at least two block widths"
assert "RESIDUAL CHECK FAILED" not in text
PYEOF
}

# ---- 1. the synthetic lines --------------------------------------------------------------
"$PY" "$TOOL" --seeds --parse-only "$SRC/tests/bench/data/seeds_fixture.txt" --out "$WORK/fixture" >/dev/null
check "$WORK/fixture/seeds.txt" fixture
sed 's/\(seeds_lu d n=1024 variant=unblocked.*\)resid=0.04 info=0 ok=1/\1resid=900 info=0 ok=0/' \
  "$SRC/tests/bench/data/seeds_fixture.txt" >"$WORK/bad.txt"
if "$PY" "$TOOL" --seeds --parse-only "$WORK/bad.txt" --out "$WORK/bad" >"$WORK/bad.stdout"; then
  echo "FAIL: a failed residual check must give exit 1"; exit 1
fi
grep -q "RESIDUAL CHECK FAILED" "$WORK/bad.stdout"

# ---- 2. a measuring run --------------------------------------------------------------------
NEEDED="cudrop-seeds-cpu cudrop-host-gemm"
[ "$MODE" = --gpu ] && NEEDED="$NEEDED cudrop-seeds-gpu cudrop-device-bench libcudrop.so"
for p in $NEEDED; do
  [ -x "$BUILD/$p" ] || { echo "SKIP: $BUILD/$p not built"; exit 77; }
done
if [ "$MODE" = --gpu ]; then
  command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
  "$PY" "$TOOL" --seeds --quick --build "$BUILD" --out "$WORK/run" --timeout 300 >"$WORK/run.stdout"
  check "$WORK/run/seeds.txt" gpu
else
  "$PY" "$TOOL" --seeds --quick --cpu-only --build "$BUILD" --out "$WORK/run" --timeout 120 >"$WORK/run.stdout" \
    2>"$WORK/run.stderr"
  cat "$WORK/run.stderr"
  [ "$(grep -c 'GPU rows of the seeds tables are skipped' "$WORK/run.stderr")" = 1 ] || { echo "FAIL: one notice"; exit 1; }
  check "$WORK/run/seeds.txt" cpu
fi
grep -q '^seeds_naive ' "$WORK/run/raw.txt"
echo "seeds_bench: OK"
