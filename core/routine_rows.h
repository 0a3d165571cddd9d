/* How the columns of a routines.def row expand. Plain C preprocessor, no C++: the linker's
   export list (abi/exports.map.in) is made with these too. */
#ifndef CUDROP_CORE_ROUTINE_ROWS_H
#define CUDROP_CORE_ROUTINE_ROWS_H

/* F(p, T, ...) for each precision of the row: its letter and element type (core/complex.h's
   Complex<R> for c and z). */
#define CUDROP_EACH_PRECISION(precisions, F, ...) CUDROP_PRECISIONS_##precisions(F, __VA_ARGS__)
#define CUDROP_PRECISIONS_sd(F, ...) F(s, float, __VA_ARGS__) F(d, double, __VA_ARGS__)
#define CUDROP_PRECISIONS_cz(F, ...) F(c, cudrop::Complex<float>, __VA_ARGS__) F(z, cudrop::Complex<double>, __VA_ARGS__)
#define CUDROP_PRECISIONS_sdcz(F, ...) CUDROP_PRECISIONS_sd(F, __VA_ARGS__) CUDROP_PRECISIONS_cz(F, __VA_ARGS__)
#define CUDROP_PRECISIONS_none(F, ...) F(, void, __VA_ARGS__)
/* czown: c and z of a stem whose s and d row comes first, with parameters of their own (the
   complex xGESDD takes RWORK): the same family as that row (no Family enumerator of its own),
   capi's entry an overload of the same template. */
#define CUDROP_PRECISIONS_czown CUDROP_PRECISIONS_cz

/* The linker symbol of precision p. */
#define CUDROP_SYMBOL(kind, p, stem) CUDROP_SYMBOL_##kind(p, stem)
#define CUDROP_SYMBOL_blas(p, stem) p##stem##_
#define CUDROP_SYMBOL_lapack(p, stem) p##stem##_
#define CUDROP_SYMBOL_cblas(p, stem) cblas_##p##stem
#define CUDROP_SYMBOL_ext(p, stem) cudrop_##p##stem##_
#define CUDROP_SYMBOL_c(p, stem) cudrop_##stem
#define CUDROP_SYMBOL_scalapack(precision, stem) p##precision##stem##_

/* The name of precision p with 64-bit integers (OpenBLAS's INTERFACE64 SYMBOLSUFFIX=64_):
   dgemm_64_, cblas_dgemm64_. Rows of kind blas, lapack and cblas only. */
#define CUDROP_SYMBOL64(kind, p, stem) CUDROP_SYMBOL64_##kind(p, stem)
#define CUDROP_SYMBOL64_blas(p, stem) p##stem##_64_
#define CUDROP_SYMBOL64_lapack(p, stem) p##stem##_64_
#define CUDROP_SYMBOL64_cblas(p, stem) cblas_##p##stem##64_

/* The names of the OpenBLAS that PyPI's numpy and scipy wheels bundle (scipy-openblas): every
   symbol prefixed with scipy_; numpy 2.x's ILP64 build adds the 64_ suffix as above
   (scipy_dgemm_64_, scipy_cblas_dgemm64_), scipy's LP64 build does not (scipy_dgemm_,
   scipy_cblas_dgemm). Rows of kind blas, lapack and cblas only (capi/exports_wheel.cpp). */
#define CUDROP_SYMBOL_WHEEL(kind, p, stem) CUDROP_SYMBOL_WHEEL_##kind(p, stem)
#define CUDROP_SYMBOL_WHEEL_blas(p, stem) scipy_##p##stem##_
#define CUDROP_SYMBOL_WHEEL_lapack(p, stem) scipy_##p##stem##_
#define CUDROP_SYMBOL_WHEEL_cblas(p, stem) scipy_cblas_##p##stem
#define CUDROP_SYMBOL_WHEEL64(kind, p, stem) CUDROP_SYMBOL_WHEEL64_##kind(p, stem)
#define CUDROP_SYMBOL_WHEEL64_blas(p, stem) scipy_##p##stem##_64_
#define CUDROP_SYMBOL_WHEEL64_lapack(p, stem) scipy_##p##stem##_64_
#define CUDROP_SYMBOL_WHEEL64_cblas(p, stem) scipy_cblas_##p##stem##64_

/* The row's own name, all precisions together: cudrop::Family's enumerator and capi's entry. */
#define CUDROP_FAMILY(kind, stem) CUDROP_FAMILY_##kind(stem)
#define CUDROP_FAMILY_blas(stem) stem
#define CUDROP_FAMILY_lapack(stem) stem
#define CUDROP_FAMILY_cblas(stem) cblas_##stem
#define CUDROP_FAMILY_ext(stem) stem
#define CUDROP_FAMILY_c(stem) stem
#define CUDROP_FAMILY_scalapack(stem) p##stem

/* CUDROP_IF_UNDERNEATH(kind)(x): x for a routine also found in the CPU library underneath,
   else nothing. */
#define CUDROP_IF_UNDERNEATH(kind) CUDROP_UNDERNEATH_##kind
#define CUDROP_UNDERNEATH_blas CUDROP_KEEP
#define CUDROP_UNDERNEATH_lapack CUDROP_KEEP
#define CUDROP_UNDERNEATH_cblas CUDROP_KEEP
#define CUDROP_UNDERNEATH_ext CUDROP_DROP
#define CUDROP_UNDERNEATH_c CUDROP_DROP
#define CUDROP_UNDERNEATH_scalapack CUDROP_DROP

/* CUDROP_IF_CPU_ROUTINE(kind)(x): x for a routine cudrop calls on the CPU by its row's signature:
   one found underneath, or ScaLAPACK's found after cudrop (cpu/scalapack.h). */
#define CUDROP_IF_CPU_ROUTINE(kind) CUDROP_CPU_ROUTINE_##kind
#define CUDROP_CPU_ROUTINE_blas CUDROP_KEEP
#define CUDROP_CPU_ROUTINE_lapack CUDROP_KEEP
#define CUDROP_CPU_ROUTINE_cblas CUDROP_KEEP
#define CUDROP_CPU_ROUTINE_ext CUDROP_DROP
#define CUDROP_CPU_ROUTINE_c CUDROP_DROP
#define CUDROP_CPU_ROUTINE_scalapack CUDROP_KEEP

/* CUDROP_IF_ILP64(kind, entry)(x): x for an exported row with 64-bit-integer entries too (the
   Fortran and CBLAS routines cudrop accelerates), else nothing. */
#define CUDROP_IF_ILP64(kind, entry) CUDROP_ILP64_##entry(kind)
#define CUDROP_ILP64_thunk(kind) CUDROP_UNDERNEATH_##kind
#define CUDROP_ILP64_asm(kind) CUDROP_UNDERNEATH_##kind
#define CUDROP_ILP64_own(kind) CUDROP_DROP
#define CUDROP_ILP64_under(kind) CUDROP_DROP

/* CUDROP_IF_EXPORTED(entry)(x): x for a routine libcudrop exports, else nothing. */
#define CUDROP_IF_EXPORTED(entry) CUDROP_EXPORTED_##entry
#define CUDROP_EXPORTED_thunk CUDROP_KEEP
#define CUDROP_EXPORTED_asm CUDROP_KEEP
#define CUDROP_EXPORTED_own CUDROP_KEEP
#define CUDROP_EXPORTED_under CUDROP_DROP

#define CUDROP_KEEP(...) __VA_ARGS__
#define CUDROP_DROP(...)
#define CUDROP_UNPAREN(...) __VA_ARGS__
#define CUDROP_STRING(x) CUDROP_STRING_(x)
#define CUDROP_STRING_(x) #x

#endif
