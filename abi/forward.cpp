// The complete libraries' forwarders (abi/forwarders.S): the lazy resolution of one slot.
#include <dlfcn.h>

#include <cstdint>
#include <cstring>

#include "cpu/backend.h"

namespace {

enum class Library { blas, lapack, both };
enum class Abi { lp64, ilp64 };

struct Forwarded {
  const char *symbol;
  Library library;  // where it is searched
  Abi abi;          // ilp64: 64-bit integers, searched only in an ILP64 library
  const char *suffixed, *plain;  // ilp64: its names there (cpu::find_by_name64)
};

void *find_in(const Forwarded &entry, bool lapack) {
  // A suffixed name is libcudrop_full's, whose unsuffixed names are LP64 (find_by_name64).
  const bool beside_lp64 = std::strcmp(entry.symbol, entry.plain) != 0;
  return entry.abi == Abi::ilp64 ? cudrop::cpu::find_by_name64(entry.suffixed, entry.plain, lapack, beside_lp64)
                                 : cudrop::cpu::find_by_name(entry.symbol, lapack);
}

// A name both libraries define (xerbla_, xerbla_array_, lsame_) is taken from the one the
// process would have reached first: standing in as libblas.so.3 loaded before liblapack.so.3
// (linked -lblas -llapack), the CPU BLAS's; else (loaded as liblapack.so.3, the usual
// -llapack -lblas, or relinked against cudrop) the CPU LAPACK's. Debian's two XERBLAs differ:
// the BLAS's is CBLAS's, which prints its own text and returns; the LAPACK's stops.
bool lapack_first() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&lapack_first), &info) == 0 || info.dli_fname == nullptr) return true;
  const char *base = std::strrchr(info.dli_fname, '/');
  base = base != nullptr ? base + 1 : info.dli_fname;
  return std::strncmp(base, "libblas", 7) != 0;
}

void *find(const Forwarded &entry) {
  switch (entry.library) {
    case Library::blas: return find_in(entry, false);
    case Library::lapack: return find_in(entry, true);
    case Library::both: break;
  }
  const bool first = lapack_first();
  if (void *fn = find_in(entry, first)) return fn;
  return find_in(entry, !first);
}

#define CUDROP_FORWARD(k, name, library, abi, suffixed, plain) {#name, Library::library, Abi::abi, #suffixed, #plain},
constexpr Forwarded kForwarded[] = {
#include "forwarded.def"
};
#undef CUDROP_FORWARD

}  // namespace

extern "C" {
// The slots, in forwarded.def's order (abi/forwarders.S).
extern void *cudrop_forward_slots[];

// Called by the common lazy stub with every argument register saved: resolves forwarder
// `index`, stores it in its slot and returns it. A symbol no CPU library provides is fatal
// (cpu::missing says what to install), never a call into nothing. Threads racing on one slot
// each resolve it and store the same address.
__attribute__((visibility("hidden"))) void *cudrop_forward_resolve(std::uint32_t index) noexcept {
  const Forwarded &entry = kForwarded[index];
  void *fn = find(entry);
  if (fn == nullptr) {
    if (entry.abi == Abi::ilp64) cudrop::cpu::missing64(entry.symbol, entry.library == Library::lapack);
    cudrop::cpu::missing(entry.symbol, entry.library == Library::lapack);
  }
  __atomic_store_n(&cudrop_forward_slots[index], fn, __ATOMIC_RELEASE);
  return fn;
}
}
