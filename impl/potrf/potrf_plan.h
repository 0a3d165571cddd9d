#pragma once
// Blocked Cholesky (lower, A = L L^T) as data: the sequence of device steps the GPU runs,
// and the host replay that rebuilds what reference LAPACK leaves in the failing diagonal
// block of a matrix that is not positive definite. Plain C++ (no CUDA), so the schedule
// and the replay are tested on any machine (tests/potrf/plan_test.cpp).
//
// Two step kinds cover the whole factorization:
//   Panel(j0):          factor the nb x nb diagonal block at (j0, j0) and solve the panel
//                       below it, rows j0+nb .. n-1 (kernels/potrf_panel.cuh);
//   Update(c0,c1,k0,k1): A(c0:n, c0:c1) -= A(c0:n, k0:k1) * A(c0:c1, k0:k1)^T, one GEMM from
//                       the diagonal of the strip c0:c1 down (only the lower part of the
//                       trailing matrix is needed; the strip's own upper half is scratch).
// The order is a left-looking phase over the first `left_cols` columns (each outer panel
// first receives every earlier column's update in one GEMM, then is factored: it needs no
// column to its right, so it can start while the rest of the matrix is still in transfer),
// one catch-up of the remaining matrix by those columns, then right-looking outer panels
// with look-ahead on two lanes (see `lane` and `wait_other` below).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "core/complex.h"
#include "core/tuning.h"

namespace cudrop::impl {

// Reference LAPACK's block size for xPOTRF (ILAENV returns 64): the GPU's diagonal blocks
// use the same boundaries so that a failing matrix can be left exactly as the reference
// leaves it (see potrf_replay_lower below).
constexpr int kPotrfNb = 64;

struct PotrfBlocking {
  int outer = tuning::kPotrfOuter;  // columns per outer panel (multiple of kPotrfNb)
  int strip = tuning::kPotrfStrip;  // columns per GEMM of the left-looking catch-up
  int left_cols = 0;    // columns factored left-looking before the switch (rounded to `outer`)
  // Look-ahead in the right-looking phase: the next outer panel is updated and factored on a
  // second lane beside the trailing update (potrf_schedule has the order).
  bool lookahead = true;
};

struct PotrfStep {
  enum Kind { Panel, Update } kind;
  int c0, c1;    // Panel: diagonal block columns c0..c1-1; Update: target columns c0..c1-1
  int k0, k1;    // Update: source columns k0..k1-1 (k1 <= c0); unused for Panel
  int needs;     // columns 0..needs-1 must be on the device before the step runs
  bool group_end;  // last step of an outer panel's factorization: a place to look at INFO
  int lane = 0;             // 0: the update lane; 1: the panel lane (look-ahead), beside it
  bool wait_other = false;  // first wait for every step listed before it on the other lane
};
// Steps of one lane run in list order, and across lanes only as wait_other says; the list
// order itself is one valid serial order.

// The steps for an n x n matrix, in the order they must run (one stream, sequentially).
inline std::vector<PotrfStep> potrf_schedule(int n, const PotrfBlocking &b) {
  std::vector<PotrfStep> steps;
  const int outer = std::max(kPotrfNb, b.outer / kPotrfNb * kPotrfNb);
  const int strip = std::max(1, b.strip);
  const int left = std::min(n, std::max(0, b.left_cols) / outer * outer);
  auto update = [&](int c0, int c1, int k0, int k1) {
    if (c0 < c1 && k0 < k1) steps.push_back({PotrfStep::Update, c0, c1, k0, k1, c1, false});
  };
  // Factor columns p0..p1-1, which have received every update from columns 0..p0-1.
  auto factor_group = [&](int p0, int p1) {
    for (int q0 = p0; q0 < p1; q0 += kPotrfNb) {
      const int q1 = std::min(q0 + kPotrfNb, p1);
      steps.push_back({PotrfStep::Panel, q0, q1, 0, 0, q1, false});
      update(q1, p1, q0, q1);  // the rest of this outer panel, from its diagonal down
    }
    // The group's last step is its last Panel or the Update right after it.
    steps.back().group_end = true;
  };
  // Columns from..until-1 (until = n by default) updated by columns k0..k1-1, in strips: the
  // left-looking catch-up, which can then start on the columns that have arrived.
  auto trailing = [&](int from, int k0, int k1, int width, int until = -1) {
    if (until < 0) until = n;
    for (int c0 = from; c0 < until; c0 += width)
      update(c0, int(std::min<long long>(until, (long long)c0 + width)), k0, k1);
  };
  for (int s0 = 0; s0 < left; s0 += outer) {
    const int s1 = std::min(n, s0 + outer);
    update(s0, s1, 0, s0);
    factor_group(s0, s1);
  }
  if (!b.lookahead) {
    trailing(left, 0, left, strip);
    for (int p0 = left; p0 < n; p0 += outer) {
      const int p1 = std::min(n, p0 + outer);
      factor_group(p0, p1);
      // The whole trailing matrix in one GEMM: the GPU skips the tiles above the diagonal
      // (GemmStore::lower_tiles), so strips of it would save no work and add launches.
      update(p1, n, p0, p1);
    }
    return steps;
  }
  // Look-ahead. Outer panels P(0), P(1), ...: F(r) factors P(r); U(r) updates P(r+1) by P(r);
  // A(r) updates P(r+2) by P(r) and B(r) the columns right of P(r+2) by P(r). The panel lane
  // (1) runs F and U, the update lane (0) runs A and B; in issue order
  //   F(0) U(0) | A(0) F(1) U(1) B(0) | A(1) F(2) U(2) B(1) | ...
  // A(r) waits for F(r) (and U(r)); U(r+1) waits for A(r), which writes the same panel; no other
  // step waits across lanes. So the update lane runs A and B back to back while the panel lane
  // factors the next panel and updates the one after it: a step costs about one trailing
  // update, not a trailing update plus the next panel's update behind it on the same lane (as
  // in the order T(r) U(r+1) on lane 0).
  std::vector<std::pair<int, int>> panels;
  for (int p0 = left; p0 < n; p0 += outer) panels.emplace_back(p0, std::min(n, p0 + outer));
  auto on_lane = [&](size_t first, int lane, bool wait_other) {
    for (size_t i = first; i < steps.size(); ++i) steps[i].lane = lane;
    if (wait_other && first < steps.size()) steps[first].wait_other = true;
  };
  const size_t m = panels.size();
  auto panel_update = [&](size_t target, size_t source, bool wait_other) {  // P(target) -= P(source) part
    const size_t first = steps.size();
    update(panels[target].first, panels[target].second, panels[source].first, panels[source].second);
    on_lane(first, target == source + 1 ? 1 : 0, wait_other);
  };
  auto factor = [&](size_t r, bool wait_other) {
    const size_t first = steps.size();
    factor_group(panels[r].first, panels[r].second);
    on_lane(first, 1, wait_other);
  };
  if (m == 0) return steps;
  // The catch-up by the left-looking columns: first the two outer panels the panel lane
  // starts with, then (beside F(0) and U(0), which need nothing else) the columns right of
  // them. One catch-up strip ahead of F(0) would leave the panel lane idle for the whole
  // catch-up, a sizeable part of a mid-sized call.
  const int head_end = panels[std::min<size_t>(m, 2) - 1].second;
  trailing(left, 0, left, strip, head_end);
  factor(0, true);  // after the head's catch-up and everything else on the update lane
  if (m > 1) panel_update(1, 0, false);
  trailing(head_end, 0, left, strip);
  for (size_t r = 0; r + 1 < m; ++r) {
    if (r + 2 < m) panel_update(r + 2, r, true);  // A(r)
    factor(r + 1, false);
    if (r + 2 < m) panel_update(r + 2, r + 1, true);  // U(r+1)
    if (r + 3 < m) {                                  // B(r)
      const size_t first = steps.size();
      update(panels[r + 3].first, n, panels[r].first, panels[r].second);  // one GEMM, as above
      on_lane(first, 0, false);
    }
  }
  return steps;
}

// ---- transfers of one triangle (the caller's array <-> the device's lower layout) ----------

// A rectangle of the caller's array that travels as one piece through a staging buffer
// (packed, leading dimension `rows`), or without one (`direct`) when it is larger.
struct TrianglePiece {
  int r0, c0;         // first row and column
  size_t rows, cols;
  bool direct;
};

// Upload: the piece that brings lower-layout columns first..last-1 (last = first + its
// width). 'L': rows first..n-1 of columns first..last-1; 'U': rows first..last-1 of columns
// first..n-1 (a row block, mirrored on the device into lower columns first..last-1). The
// other triangle's entries inside the piece's diagonal block travel too (device scratch).
inline TrianglePiece upload_piece(bool upper, int n, int first, size_t elem_size, size_t staging_bytes,
                                  int *last) {
  const size_t line_bytes = size_t(n - first) * elem_size;  // one column (L) or one row (U)
  const size_t lines = std::max<size_t>(1, staging_bytes / line_bytes);
  *last = static_cast<int>(std::min<size_t>(size_t(n), size_t(first) + lines));
  TrianglePiece p;
  p.r0 = first;
  p.c0 = first;
  p.rows = upper ? size_t(*last - first) : size_t(n - first);
  p.cols = upper ? size_t(n - first) : size_t(*last - first);
  p.direct = p.rows * p.cols * elem_size > staging_bytes;
  return p;
}

// Download of the triangle's columns c0..c1-1 in the caller's array: column j gets rows
// j..n-1 ('L') or rows 0..j ('U'). Final once the outer panels up to column c1-1 are: a 'U'
// column j is row j of the lower factor, which the device mirrors into its upper triangle
// (all of row j is final with the panel holding column j). Finished outer panels go back this
// way while the GPU still works on the columns to their right.
// Pieces: columns q0..q1-1, rows q0..n-1 ('L') or 0..q1-1 ('U'), the widest that fits a
// staging buffer (rows outside a column's part travel too and are not copied out).
inline std::vector<TrianglePiece> download_pieces(bool upper, int n, int c0, int c1, size_t elem_size,
                                                  size_t staging_bytes) {
  std::vector<TrianglePiece> pieces;
  const size_t budget = staging_bytes / elem_size;  // elements per staging buffer
  for (int q0 = c0; q0 < c1;) {
    size_t width;
    if (!upper) {
      width = std::max<size_t>(1, budget / size_t(n - q0));
    } else {  // the largest w with (q0 + w) * w <= budget
      width = static_cast<size_t>((std::sqrt(double(q0) * q0 + 4.0 * double(budget)) - q0) / 2);
      while (width > 1 && (size_t(q0) + width) * width > budget) --width;
      while ((size_t(q0) + width + 1) * (width + 1) <= budget) ++width;
      width = std::max<size_t>(1, width);
    }
    const int q1 = static_cast<int>(std::min<size_t>(size_t(c1), size_t(q0) + width));
    TrianglePiece p;
    p.c0 = q0;
    p.cols = size_t(q1 - q0);
    p.r0 = upper ? 0 : q0;
    p.rows = upper ? size_t(q1) : size_t(n - q0);
    p.direct = p.rows * p.cols * elem_size > staging_bytes;
    pieces.push_back(p);
    q0 = q1;
  }
  return pieces;
}

// The rows [*first, *end) of column j that belong to the triangle.
inline void triangle_rows(bool upper, int n, int j, int *first, int *end) {
  *first = upper ? 0 : j;
  *end = upper ? j + 1 : n;
}

// Host side of a staged download piece: from `stage` (packed, leading dimension p.rows) into
// the caller's array, exactly the triangle's part. Each group of `group` columns is a
// rectangle away from the diagonal (given to copy_columns(dst, dst_ld_bytes, src, src_ld_bytes,
// row_bytes, cols), the parallel copier) plus its triangle, copied column by column.
template <class T, class CopyColumns>
void copy_piece_out(bool upper, int n, const TrianglePiece &p, const T *stage, T *a, size_t lda, int group,
                    CopyColumns &&copy_columns) {
  const size_t es = sizeof(T);
  const int c1 = p.c0 + static_cast<int>(p.cols);
  auto staged = [&](long long row, long long col) { return stage + size_t(row - p.r0) + size_t(col - p.c0) * p.rows; };
  auto dst = [&](long long row, long long col) { return a + size_t(row) + size_t(col) * lda; };
  for (int s0 = p.c0; s0 < c1; s0 += group) {
    const int s1 = std::min(c1, s0 + group);
    if (!upper) {
      for (int j = s0; j < s1; ++j) std::memcpy(dst(j, j), staged(j, j), size_t(s1 - j) * es);  // rows j..s1-1
      if (s1 < n)  // rows s1..n-1
        copy_columns(dst(s1, s0), lda * es, staged(s1, s0), p.rows * es, size_t(n - s1) * es, size_t(s1 - s0));
    } else {
      if (s0 > 0)  // rows 0..s0-1
        copy_columns(dst(0, s0), lda * es, staged(0, s0), p.rows * es, size_t(s0) * es, size_t(s1 - s0));
      for (int j = s0; j < s1; ++j) std::memcpy(dst(s0, j), staged(s0, j), size_t(j - s0 + 1) * es);  // rows s0..j
    }
  }
}

// Reference LAPACK's blocked SPOTRF (lower) stops at the first diagonal block j0 whose
// SPOTRF2 fails, leaving: columns 0..j0-1 factored, the block's lower triangle as SPOTRF2
// left it (updated by SSYRK, then recursively half-factored up to the failing pivot), and
// everything else in the triangle as it was on entry. This replays SPOTRF2 (lower) on the
// SSYRK-updated block `a` (n x n, column-major), with the reference's operation order.
// Complex T: CPOTRF2, with CTRSM('R','L','C') and CHERK, the pivot REAL(A(j,j)); CHERK leaves
// the diagonal it updates real (the caller makes the block's diagonal real first when CPOTRF's
// own CHERK has updated it, j0 > 0).
// `forced`: a column (0-based, in this block) treated as failing even if its pivot is
// positive, so that the GPU's verdict (which may differ from this one by rounding for a
// pivot within a few ulps of zero) is never contradicted; -1 for none.
// Returns the reference INFO relative to the block (1-based), 0 if no pivot failed.
template <class T>
int potrf_replay_lower(int n, T *a, long lda, int forced, int offset = 0) {
  if (n <= 0) return 0;
  using R = real_t<T>;
  if (n == 1) {
    const R ajj = real_part(a[0]);
    if (!(ajj > R(0)) || offset == forced) return 1;  // AJJ <= 0 or NaN: A(1,1) stays as it is
    a[0] = T(std::sqrt(ajj));
    return 0;
  }
  const int n1 = n / 2, n2 = n - n1;
  if (int info = potrf_replay_lower(n1, a, lda, forced, offset)) return info;
  T *a21 = a + n1, *a22 = a + n1 + size_t(n1) * lda;
  // STRSM('R', 'L', 'T', 'N', N2, N1, ONE, A11, LDA, A21, LDA): A21 := A21 * L11^-T (CTRSM
  // 'C': L11^-H; its TEMP = ONE / CONJG(L(k,k)) is 1 / L(k,k), that diagonal being real).
  for (int k = 0; k < n1; ++k) {
    const T temp = T(R(1) / real_part(a[k + size_t(k) * lda]));
    for (int i = 0; i < n2; ++i) a21[i + size_t(k) * lda] = temp * a21[i + size_t(k) * lda];
    for (int j = k + 1; j < n1; ++j) {
      const T ljk = conj(a[j + size_t(k) * lda]);
      if (ljk != T(0))
        for (int i = 0; i < n2; ++i) a21[i + size_t(j) * lda] -= ljk * a21[i + size_t(k) * lda];
    }
  }
  // SSYRK('L', 'N', N2, N1, -ONE, A21, LDA, ONE, A22, LDA): A22 := A22 - A21 A21^T (lower;
  // CHERK: A21 A21^H, each diagonal entry REAL(C(j,j)) + REAL(TEMP*A(j,l))).
  for (int j = 0; j < n2; ++j) {
    T &cjj = a22[j + size_t(j) * lda];
    cjj = T(real_part(cjj));
    for (int l = 0; l < n1; ++l) {
      const T temp = -conj(a21[j + size_t(l) * lda]);
      if (temp != T(0)) {
        cjj = T(real_part(cjj) + real_part(temp * a21[j + size_t(l) * lda]));
        for (int i = j + 1; i < n2; ++i) a22[i + size_t(j) * lda] += temp * a21[i + size_t(l) * lda];
      }
    }
  }
  if (int info = potrf_replay_lower(n2, a22, lda, forced, offset + n1)) return info + n1;
  return 0;
}

}  // namespace cudrop::impl
