#pragma once
// routines.def's rows expanded for the fuzzer's own sources (library.cpp's forwarders, the
// stand-in library in shim.cpp), with std::complex for c and z (core/routine_rows.h expands
// them with cudrop's own Complex, which the fuzzer does not use).
#include <complex>

#include "core/routine_rows.h"

// F(p, T, ...) for each precision of the row.
#define FUZZ_EACH_PRECISION(precisions, F, ...) FUZZ_PRECISIONS_##precisions(F, __VA_ARGS__)
#define FUZZ_PRECISIONS_sd(F, ...) F(s, float, __VA_ARGS__) F(d, double, __VA_ARGS__)
#define FUZZ_PRECISIONS_cz(F, ...) F(c, std::complex<float>, __VA_ARGS__) F(z, std::complex<double>, __VA_ARGS__)
#define FUZZ_PRECISIONS_sdcz(F, ...) FUZZ_PRECISIONS_sd(F, __VA_ARGS__) FUZZ_PRECISIONS_cz(F, __VA_ARGS__)
#define FUZZ_PRECISIONS_none(F, ...)
#define FUZZ_PRECISIONS_czown FUZZ_PRECISIONS_cz

// FUZZ_IF_FORTRAN(kind, entry)(x): x for an exported Fortran BLAS or LAPACK routine (the names
// the reference libraries call each other by), else nothing.
#define FUZZ_IF_FORTRAN(kind, entry) FUZZ_FORTRAN_##kind(entry)
#define FUZZ_FORTRAN_blas(entry) CUDROP_IF_EXPORTED(entry)
#define FUZZ_FORTRAN_lapack(entry) CUDROP_IF_EXPORTED(entry)
#define FUZZ_FORTRAN_cblas(entry) CUDROP_DROP
#define FUZZ_FORTRAN_ext(entry) CUDROP_DROP
#define FUZZ_FORTRAN_c(entry) CUDROP_DROP
#define FUZZ_FORTRAN_scalapack(entry) CUDROP_DROP
