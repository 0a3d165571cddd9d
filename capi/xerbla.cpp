// Error reporting for an illegal argument that no CPU routine underneath can take: the
// handler the process would call (see capi/report.h), else the reference's own text.
#include "capi/report.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#include "cpu/backend.h"

// Weak references, never definitions: an executable linked against libcudrop alone that
// defines xerbla_ or cblas_xerbla then exports them (a shared library on its link line uses
// them), so that the CPU library cudrop loads underneath binds to the program's handlers, as
// it would linked against that library directly. Lookups go through cpu::find_global.
extern "C" {
__attribute__((weak)) void xerbla_(const char *srname, const int *info, size_t srname_len);
__attribute__((weak)) void cblas_xerbla(int info, const char *routine, const char *form, ...);
}
__attribute__((used)) static void *const kHandlersExportedByLinkedPrograms[] = {
    reinterpret_cast<void *>(&xerbla_), reinterpret_cast<void *>(&cblas_xerbla)};

namespace cudrop::capi {
namespace {

using xerbla_fn = void (*)(const char *, const int *, size_t);
using cblas_xerbla_fn = void (*)(int, const char *, const char *, ...);

// The handler `symbol` the caller would reach: global scope first, then its own dependencies.
void *handler_for(const char *symbol, const void *caller) {
  if (void *fn = cpu::find_global(symbol)) return fn;
  return cpu::find_in_scope_of(caller, symbol);
}

// Reference CBLAS's globals, if the process has them: its handlers read them.
void set_cblas_globals(int row_major, int call_from_c) {
  if (auto *p = static_cast<int *>(cpu::find_global("RowMajorStrg"))) *p = row_major;
  if (auto *p = static_cast<int *>(cpu::find_global("CBLAS_CallFromC"))) *p = call_from_c;
}

// Reference CBLAS's cblas_xerbla: the program's, else its text on stderr and exit(-1).
// RowMajorStrg is set around the call as reference cblas_<routine> sets it. cblas: the routine's
// names (its row-major renumbering); routine: the name the handler gets.
void cblas_handler(int info, const RoutineNames &cblas, const char *routine, bool row_major, const char *form,
                   int value, bool has_value, const void *caller) {
  if (auto handler = reinterpret_cast<cblas_xerbla_fn>(handler_for("cblas_xerbla", caller))) {
    set_cblas_globals(row_major, 1);
    if (has_value) handler(info, routine, form, value);
    else handler(info, routine, form);
    set_cblas_globals(0, 0);
    return;
  }
  // Reference cblas_xerbla maps a row-major call's numbers back (the call was swapped).
  if (row_major) {
    const int *pairs = cblas.row_major_renumbering;
    for (size_t i = 0; i + 1 < std::size(cblas.row_major_renumbering) && pairs[i] != 0; i += 2) {
      if (info == pairs[i]) {
        info = pairs[i + 1];
        break;
      }
      if (info == pairs[i + 1]) {
        info = pairs[i];
        break;
      }
    }
  }
  if (info != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, routine);
  if (has_value) std::fprintf(stderr, form, value);
  std::exit(-1);
}

}  // namespace

void report_illegal_argument(const RoutineNames &routine, int info, const void *caller) {
  const char *name = routine.handler.text;
  const size_t name_len = routine.handler.length;
  if (auto handler = reinterpret_cast<xerbla_fn>(handler_for("xerbla_", caller))) return handler(name, &info, name_len);
  if (auto handler = reinterpret_cast<xerbla_fn>(cpu::find(routine_names<Family::xerbla>.cpu)))
    return handler(name, &info, name_len);
  // Reference LAPACK XERBLA: the name without trailing blanks, INFO as I2, then STOP.
  size_t len = name_len;
  while (len > 0 && name[len - 1] == ' ') --len;
  std::printf(" ** On entry to %.*s parameter number %2d had an illegal value\n", static_cast<int>(len), name, info);
  std::fflush(stdout);
  std::exit(0);
}

void report_illegal_cblas_argument(const RoutineNames &cblas, int info, bool row_major, const char *what, int value,
                                   const void *caller) {
  const std::string form = std::string("Illegal ") + what + " setting, %d\n";
  cblas_handler(info, cblas, cblas.handler.text, row_major, form.c_str(), value, true, caller);
}

void report_illegal_cblas_fortran_argument(const RoutineNames &cblas, const RoutineNames &fortran, int fortran_info,
                                           bool row_major, const void *caller) {
  const char *fortran_name = fortran.handler.text;
  // Reference CBLAS calls the Fortran routine, whose XERBLA is the process's xerbla_: a
  // program's own gets the Fortran name and number; CBLAS's own (xerbla.c) turns them into
  // cblas_xerbla(info + 1, "cblas_" + lower-case name, ""), blanks kept.
  if (auto handler = reinterpret_cast<xerbla_fn>(handler_for("xerbla_", caller))) {
    set_cblas_globals(row_major, 1);
    handler(fortran_name, &fortran_info, fortran.handler.length);
    set_cblas_globals(0, 0);
    return;
  }
  std::string name = "cblas_";
  for (const char *p = fortran_name; *p != '\0'; ++p) name += static_cast<char>(std::tolower(*p));
  cblas_handler(fortran_info + 1, cblas, name.c_str(), row_major, "", 0, false, caller);
}

}  // namespace cudrop::capi
