#pragma once
// cudrop's one diagnostic channel: "cudrop: ..." lines on stderr, by CUDROP_VERBOSE.
namespace cudrop {

// printf-style line "cudrop: ..." on stderr when CUDROP_VERBOSE >= level.
void log(int level, const char *format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace cudrop
