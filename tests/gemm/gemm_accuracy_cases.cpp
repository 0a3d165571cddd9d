// gemm_accuracy: the calls made for each shape (transpose pairs, alpha and beta, APIs, padding and
// misalignment, all of them or rotating by size), each run by run_case.
#include "tests/gemm/gemm_accuracy.h"

namespace gemm_accuracy {

bool listed(const std::vector<Shape> &list, const Shape &sh) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Shape &o) { return o.m == sh.m && o.n == sh.n && o.k == sh.k; });
}

// Combinations per shape: all of them for small shapes, a rotating subset for larger ones.
void run_shape(const Shape &sh, Rng &rng, long &rot) {
  const char trans[3] = {'N', 'T', 'C'};
  const double ab[4] = {0.0, 1.0, -1.3, 0.7};
  const Api apis[3] = {Api::f77, Api::cblas_col, Api::cblas_row};
  const long pads[3] = {0, 1, 7};
  const double work = double(sh.m) * sh.n * std::max(sh.k, 1L);
  const bool do_s = opt.prec.find('s') != std::string::npos;
  const bool do_d = opt.prec.find('d') != std::string::npos;
  auto run = [&](bool dbl, const Case &c) {
    if (dbl) run_case<double>(c, rng);
    else run_case<float>(c, rng);
  };
  std::vector<bool> precs;
  if (do_s) precs.push_back(false);
  if (do_d) precs.push_back(true);
  if (work <= 40000) {
    // Everything: 3 APIs x 9 transpose pairs x 16 (alpha, beta), per precision.
    for (bool dbl : precs)
      for (Api api : apis)
        for (char ta : trans)
          for (char tb : trans)
            for (double al : ab)
              for (double be : ab) {
                ++rot;
                const Case c{api, ta, tb, sh.m, sh.n, sh.k, al, be, rot % 2, pads[rot % 3],
                             (rot / 2) % 2 == 1};
                run(dbl, c);
              }
    return;
  }
  if (work <= 2e7 && std::max(sh.m, std::max(sh.n, sh.k)) < 100000) {
    // Per precision: every transpose pair once and every (alpha, beta) once; API, alignment,
    // padding and the other parameters rotate.
    for (bool dbl : precs) {
      for (long pair = 0; pair < 9; ++pair) {
        ++rot;
        const Case c{apis[rot % 3], trans[pair / 3], trans[pair % 3], sh.m, sh.n, sh.k,
                     ab[1 + rot % 3], ab[(rot / 3) % 4], rot % 2, pads[(rot / 2) % 3],
                     rot % 4 == 1};
        run(dbl, c);
      }
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          ++rot;
          const long pair = rot % 9;
          const Case c{apis[(rot / 9) % 3], trans[pair / 3], trans[pair % 3], sh.m, sh.n, sh.k,
                       ab[a], ab[b], rot % 2, pads[(rot / 2) % 3], rot % 4 == 3};
          run(dbl, c);
        }
    }
    return;
  }
  // Large: three calls per precision; the transpose pair, API, alpha/beta (mostly nonzero;
  // beta = 0 with a NaN-filled C every fourth), alignment and padding rotate over the shapes.
  // (Extreme aspect ratios get at most one element of padding: 7 would multiply the memory.)
  const bool extreme = std::max(sh.m, std::max(sh.n, sh.k)) >= 100000;
  for (bool dbl : precs)
    for (int i = 0; i < 3; ++i) {
      ++rot;
      const long pair = (rot * 4) % 9;
      const Case c{apis[rot % 3], trans[pair / 3], trans[pair % 3], sh.m, sh.n, sh.k,
                   ab[1 + rot % 3], rot % 4 == 0 ? 0.0 : ab[1 + (rot / 3) % 3], (rot / 2) % 2,
                   extreme ? (rot / 5) % 2 : pads[(rot / 5) % 3], rot % 2 == 1};
      run(dbl, c);
    }
}

// Shapes large enough for the in-core transfer pipeline (column panels of B and C; with
// beta = 0 the panels of C go back from a sender thread while B is still going up), with an
// odd n so the last panel is partial: per precision every transpose pair with beta = 0 (C full
// of NaN), then one call that reads C; API, padding and misalignment rotate.
void run_pipeline_shape(const Shape &sh, Rng &rng, long &rot) {
  const char pairs[4][2] = {{'N', 'N'}, {'T', 'N'}, {'N', 'T'}, {'T', 'T'}};
  const Api apis[3] = {Api::f77, Api::cblas_col, Api::cblas_row};
  const long pads[3] = {0, 1, 7};
  for (bool dbl : {false, true}) {
    if (opt.prec.find(dbl ? 'd' : 's') == std::string::npos) continue;
    for (int i = 0; i < 5; ++i) {
      ++rot;
      const Case c{apis[rot % 3], pairs[i % 4][0], pairs[i % 4][1], sh.m, sh.n, sh.k, i == 4 ? -0.7 : 1.3,
                   i == 4 ? -1.3 : 0.0, rot % 2, pads[(rot / 2) % 3], (rot / 3) % 2 == 1};
      if (dbl) run_case<double>(c, rng);
      else run_case<float>(c, rng);
    }
  }
}

// The out-of-core set: every (transpose pair, beta) per precision; alpha, API, LD padding and
// misalignment rotate. The first call of each shape and precision is f77 N,N with beta = -1.3
// (single) or 0 (double), so that a fault-injection run starts with a C read / not read.
void run_ooc_shape(const Shape &sh, Rng &rng, long &rot) {
  const double alphas[3] = {1.0, -1.3, 0.7};
  const double betas[3] = {-1.3, 0.0, 1.0};
  const Api apis[3] = {Api::f77, Api::cblas_col, Api::cblas_row};
  const long pads[3] = {0, 1, 7};
  for (bool dbl : {false, true}) {
    if (opt.prec.find(dbl ? 'd' : 's') == std::string::npos) continue;
    for (int t = 0; t < 4; ++t)
      for (int b = 0; b < 3; ++b) {
        ++rot;
        const int step = t * 3 + b;
        const char ta = (t & 1) ? (rot % 2 ? 'C' : 'T') : 'N';
        const char tb = (t & 2) ? (rot % 3 ? 'T' : 'C') : 'N';
        const Case c{apis[step % 3], ta, tb, sh.m, sh.n, sh.k, alphas[(step + rot) % 3],
                     betas[(b + (dbl ? 1 : 0)) % 3], step == 0 ? 0 : (step / 2) % 2, pads[(step + 1) % 3] * (step != 0),
                     b == 2};
        if (opt.plans_only) {
          if (dbl) note_plan<double>(c);
          else note_plan<float>(c);
          ++g_calls;
        } else if (dbl) {
          run_case<double>(c, rng);
        } else {
          run_case<float>(c, rng);
        }
      }
  }
}

}  // namespace gemm_accuracy
