#include "tests/fuzz/handlers.h"

#include <cstdarg>
#include <cstddef>
#include <cstdio>

namespace fuzz {

std::vector<HandlerCall> g_handler_calls;

std::string describe(const std::vector<HandlerCall> &calls) {
  if (calls.empty()) return "no handler call";
  std::string s;
  for (const HandlerCall &h : calls) {
    char line[256];
    if (h.cblas)
      std::snprintf(line, sizeof line, "[cblas_xerbla(%d, \"%s\", \"%s\")]", h.info, h.routine.c_str(),
                    h.message.c_str());
    else
      std::snprintf(line, sizeof line, "[xerbla_(\"%s\", %d, len %ld)]", h.routine.c_str(), h.info, h.name_length);
    s += line;
  }
  return s;
}

}  // namespace fuzz

extern "C" void xerbla_(const char *srname, const int *info, size_t srname_len) {
  const size_t shown = srname_len < 64 ? srname_len : 64;
  fuzz::g_handler_calls.push_back({false, std::string(srname, shown), long(srname_len), *info, ""});
}

extern "C" void cblas_xerbla(int info, const char *routine, const char *form, ...) {
  char message[256] = "";
  va_list args;
  va_start(args, form);
  std::vsnprintf(message, sizeof message, form, args);
  va_end(args);
  std::string text(message);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  fuzz::g_handler_calls.push_back({true, routine, -1, info, text});
}
