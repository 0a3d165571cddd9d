#pragma once
// The one tracer of host calls (CUDROP_GEMM_TRACE, CUDROP_POTRF_TRACE, CUDROP_GETRF_TRACE): where
// an end-to-end time goes. A trace collects named marks, milliseconds since the call started on
// the host, into one line that report() prints on stderr. Off (level 0) it costs a branch per mark.
// Marks may come from several threads (a sender thread marks after its downloads); a trace
// never throws and never fails the call it watches.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <new>
#include <string>

namespace cudrop {

class CallTrace {
 public:
  using Clock = std::chrono::steady_clock;

  // level: the variable's value; 0 is off. Higher levels are the caller's to interpret.
  explicit CallTrace(int level) : level_(level) {}
  CallTrace(const CallTrace &) = delete;
  CallTrace &operator=(const CallTrace &) = delete;

  int level() const { return level_; }
  bool on() const { return level_ > 0; }
  Clock::time_point start() const { return start_; }
  double now_ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - start_).count(); }

  // Appends " what=<ms since the start>".
  void mark(const char *what) {
    if (!on()) return;
    char text[48];
    std::snprintf(text, sizeof text, " %s=%.3f", what, now_ms());
    append(text);
  }

  // Prints "cudrop: <head><marks>" on stderr; head is printf-formatted.
  void report(const char *head, ...) const __attribute__((format(printf, 2, 3))) {
    if (!on()) return;
    char text[256];
    va_list args;
    va_start(args, head);
    std::vsnprintf(text, sizeof text, head, args);
    va_end(args);
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(stderr, "cudrop: %s%s\n", text, line_.c_str());
  }

 private:
  void append(const char *text) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      line_ += text;
    } catch (const std::bad_alloc &) {
    }
  }

  const int level_;
  const Clock::time_point start_ = Clock::now();
  mutable std::mutex mutex_;
  std::string line_;
};

}  // namespace cudrop
