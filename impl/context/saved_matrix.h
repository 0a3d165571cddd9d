#pragma once
// A copy of the caller's matrix, made in a thread of its own while the GPU works, so that a GPU
// failure while results are being written back over that matrix can put it back: the CPU routine
// then starts from the caller's inputs. The copy is allocated in the thread too (first-touching
// rows x cols elements is no small part of making it).
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <thread>

namespace cudrop::impl {

template <class T>
class SavedMatrix {
 public:
  // Which rows of each column restore() puts back: all, or the upper (rows 0..j) or lower
  // (rows j..rows-1) triangle of column j, as far as the write-back wrote.
  enum class Part { whole, upper, lower };

  // Starts copying the rows x cols matrix at a (leading dimension lda); may throw
  // std::system_error before anything is written (no thread).
  SavedMatrix(const T *a, size_t lda, size_t rows, size_t cols) : rows_(rows) {
    saver_ = std::thread([this, a, lda, cols] {
      copy_.reset(new (std::nothrow) T[rows_ * cols]);
      if (copy_ != nullptr)
        for (size_t j = 0; j < cols; ++j) std::memcpy(copy_.get() + j * rows_, a + j * lda, rows_ * sizeof(T));
    });
  }
  ~SavedMatrix() {
    if (saver_.joinable()) saver_.join();
  }
  SavedMatrix(const SavedMatrix &) = delete;
  SavedMatrix &operator=(const SavedMatrix &) = delete;

  // Waits for the copy; false when there was no memory for it (then nothing may be written
  // over the caller's matrix before the call has succeeded).
  bool ready() {
    if (saver_.joinable()) saver_.join();
    return copy_ != nullptr;
  }

  // Puts columns 0..cols-1 (their `part`) back into a (leading dimension lda). After ready().
  void restore(T *a, size_t lda, size_t cols, Part part = Part::whole) const {
    for (size_t j = 0; j < cols; ++j) {
      const size_t first = part == Part::lower ? j : 0;
      const size_t last = part == Part::upper ? (j + 1 < rows_ ? j + 1 : rows_) : rows_;
      if (first < last) std::memcpy(a + j * lda + first, copy_.get() + j * rows_ + first, (last - first) * sizeof(T));
    }
  }

 private:
  size_t rows_;
  std::unique_ptr<T[]> copy_;
  std::thread saver_;
};

}  // namespace cudrop::impl
