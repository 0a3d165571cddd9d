#pragma once
// The error handlers this program defines (handlers.cpp): xerbla_ and cblas_xerbla record what
// they receive and return (as Debian's xerbla_ does), so that a case compares the records of
// the reference's call and of cudrop's. Both libraries reach them: the reference libraries are
// loaded RTLD_LOCAL and bind to the program's definitions first, and cudrop calls the handler
// a program defines itself.
#include <string>
#include <vector>

namespace fuzz {

struct HandlerCall {
  bool cblas;
  std::string routine;
  long name_length;  // the hidden CHARACTER length xerbla_ got (-1 for cblas_xerbla)
  int info;
  std::string message;  // cblas_xerbla's form, formatted
  bool operator==(const HandlerCall &o) const {
    return cblas == o.cblas && routine == o.routine && name_length == o.name_length && info == o.info &&
           message == o.message;
  }
};

// The calls since the list was last cleared.
extern std::vector<HandlerCall> g_handler_calls;

// The calls in a line, for a report.
std::string describe(const std::vector<HandlerCall> &calls);

}  // namespace fuzz
