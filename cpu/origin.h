#pragma once
// Where each routine of the CPU BLAS/LAPACK underneath comes from, for cudrop-info
// (capi/info.cpp): the library file and the rule of cpu/backend.cpp's resolve() that found it.
#include <string>
#include <vector>

namespace cudrop::cpu {

struct Origin {
  std::string symbol;   // sgemm_
  std::string library;  // the file it lives in; empty when no CPU library provides it
  std::string how;      // "loaded in the process", "CUDROP_CPU_BLAS", "the search list (libblas.so.3)"
  std::string rule;     // how, without the search list's candidate: "the search list"
  bool lapack = false;  // a LAPACK routine, else a BLAS (or CBLAS) one
  bool ilp64 = false;   // with 64-bit integers (dgemm_64_, cblas_dgemm64_)
};

// Every routine found underneath, in routines.def's order, each resolved now if not yet.
std::vector<Origin> origins();

// The OpenBLAS libraries the process has loaded (file name containing "openblas") that define
// dgemm under none of the names cudrop serves (dgemm_, dgemm_64_, scipy_dgemm_,
// scipy_dgemm_64_): a wheel of another naming convention, whose calls never reach cudrop.
std::vector<std::string> unknown_blas_libraries();

}  // namespace cudrop::cpu
