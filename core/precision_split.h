#pragma once
// CUDROP_IF_s(x) ... CUDROP_IF_z(x): x where this object instantiates that precision. A unit
// whose kernels take long to compile is built once per precision (CMakeLists.txt's split
// units: a generated wrapper defines CUDROP_ONLY_<p> and includes the unit), so that a build
// of two cores compiles its precisions side by side; compiled plainly, it instantiates all four.
#if defined(CUDROP_ONLY_s) || defined(CUDROP_ONLY_d) || defined(CUDROP_ONLY_c) || defined(CUDROP_ONLY_z)
#define CUDROP_SPLIT_BY_PRECISION 1
#endif
#if !defined(CUDROP_SPLIT_BY_PRECISION) || defined(CUDROP_ONLY_s)
#define CUDROP_IF_s(...) __VA_ARGS__
#else
#define CUDROP_IF_s(...)
#endif
#if !defined(CUDROP_SPLIT_BY_PRECISION) || defined(CUDROP_ONLY_d)
#define CUDROP_IF_d(...) __VA_ARGS__
#else
#define CUDROP_IF_d(...)
#endif
#if !defined(CUDROP_SPLIT_BY_PRECISION) || defined(CUDROP_ONLY_c)
#define CUDROP_IF_c(...) __VA_ARGS__
#else
#define CUDROP_IF_c(...)
#endif
#if !defined(CUDROP_SPLIT_BY_PRECISION) || defined(CUDROP_ONLY_z)
#define CUDROP_IF_z(...) __VA_ARGS__
#else
#define CUDROP_IF_z(...)
#endif
