#include "core/log.h"

#include <cstdarg>
#include <cstdio>

#include "core/env.h"

namespace cudrop {

void log(int level, const char *format, ...) {
  if (settings().verbose < level) return;
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::fprintf(stderr, "cudrop: %s\n", line);
}

}  // namespace cudrop
