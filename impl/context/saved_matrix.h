#pragma once
// A copy of (part of) the caller's matrix, made by threads of its own while the GPU works, so
// that a GPU failure while results are being written back over that matrix can put it back:
// the CPU routine then starts from the caller's inputs. The copy is first touched by those
// threads too (first-touching the pages is no small part of making it), and is split over
// several of them: one thread copies a few GB/s, and the copy must be done by the time the GPU
// is (else the write-back waits for it).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

namespace cudrop::impl {

template <class T>
class SavedMatrix {
 public:
  // Which rows of each column are kept and put back: all, or the upper (rows 0..j) or lower
  // (rows j..rows-1) triangle of column j.
  enum class Part { whole, upper, lower };

  // Starts copying `part` of the rows x cols matrix at a (leading dimension lda); may throw
  // std::system_error before anything is written (no thread started).
  SavedMatrix(const T *a, size_t lda, size_t rows, size_t cols, Part part = Part::whole)
      : rows_(rows), cols_(cols), part_(part) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t threads = std::max<size_t>(1, std::min<size_t>({kMaxThreads, cores / 2 + 1, cols}));
    copy_.reset(static_cast<T *>(::operator new(rows * cols * sizeof(T) + 1, std::nothrow)));
    if (copy_ == nullptr) return;
    // Column ranges of about equal element counts (a triangle's columns differ in length).
    const double total = double(rows) * double(cols);
    size_t first = 0;
    for (size_t t = 0; t < threads && first < cols; ++t) {
      size_t last = first;
      double done = 0;
      const double share = total / double(threads);
      while (last < cols && (done < share || last == first)) done += double(rows), ++last;
      if (t + 1 == threads) last = cols;
      try {
        savers_.emplace_back([this, a, lda, first, last] {
          for (size_t j = first; j < last; ++j) {
            const auto [lo, hi] = span(j);
            if (lo < hi) std::memcpy(copy_.get() + j * rows_ + lo, a + j * lda + lo, (hi - lo) * sizeof(T));
          }
        });
      } catch (...) {
        join();  // no thread may outlive a constructor that throws
        throw;
      }
      first = last;
    }
  }
  ~SavedMatrix() { join(); }
  SavedMatrix(const SavedMatrix &) = delete;
  SavedMatrix &operator=(const SavedMatrix &) = delete;

  // Waits for the copy; false when there was no memory for it (then nothing may be written
  // over the caller's matrix before the call has succeeded).
  bool ready() {
    join();
    return copy_ != nullptr;
  }

  // Puts columns 0..cols-1 (the part kept) back into a (leading dimension lda). After ready().
  void restore(T *a, size_t lda, size_t cols) const {
    for (size_t j = 0; j < std::min(cols, cols_); ++j) {
      const auto [lo, hi] = span(j);
      if (lo < hi) std::memcpy(a + j * lda + lo, copy_.get() + j * rows_ + lo, (hi - lo) * sizeof(T));
    }
  }

 private:
  static constexpr size_t kMaxThreads = 8;
  struct Free {
    void operator()(T *p) const { ::operator delete(p); }
  };
  std::pair<size_t, size_t> span(size_t j) const {
    const size_t lo = part_ == Part::lower ? std::min(j, rows_) : 0;
    const size_t hi = part_ == Part::upper ? std::min(j + 1, rows_) : rows_;
    return {lo, hi};
  }
  void join() {
    for (std::thread &t : savers_)
      if (t.joinable()) t.join();
  }
  size_t rows_, cols_;
  Part part_;
  std::unique_ptr<T, Free> copy_;
  std::vector<std::thread> savers_;
};

}  // namespace cudrop::impl
