// SavedMatrix (impl/context/saved_matrix.h): the copy made by several threads puts back exactly
// the part it kept, in the columns asked, and writes nothing else of the caller's matrix.
#include <cstdio>
#include <vector>

#include "impl/context/saved_matrix.h"

int main() {
  using cudrop::impl::SavedMatrix;
  using Part = SavedMatrix<double>::Part;
  int failures = 0, checks = 0;
  for (Part part : {Part::whole, Part::upper, Part::lower})
    for (size_t n : {1, 2, 7, 33, 130, 1000}) {
      const size_t lda = n + 3;
      std::vector<double> a(lda * n), original;
      for (size_t e = 0; e < a.size(); ++e) a[e] = double(e) * 0.5 + 1;
      original = a;
      SavedMatrix<double> saved(a.data(), lda, n, n, part);
      if (!saved.ready()) {
        std::printf("FAIL no memory for n=%zu\n", n);
        return 1;
      }
      for (double &x : a) x = -7;  // the write-back, everywhere (the test's sentinel outside the part)
      const size_t cols = n / 2 + 1;
      saved.restore(a.data(), lda, cols);
      for (size_t j = 0; j < n; ++j)
        for (size_t i = 0; i < lda; ++i) {
          const bool kept = i < n && (part == Part::whole || (part == Part::upper ? i <= j : i >= j));
          const double want = kept && j < cols ? original[i + j * lda] : -7;
          ++checks;
          if (a[i + j * lda] != want) {
            if (++failures <= 5)
              std::printf("FAIL part %d n=%zu: A(%zu,%zu) = %g, want %g\n", int(part), n, i, j, a[i + j * lda], want);
          }
        }
    }
  std::printf("saved_matrix_test: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
