// The reference CBLAS's two variables, in the complete library only (libcudrop_full): part of
// Debian's libblas.so.3 ABI, which programs may use directly (the CBLAS testers declare
// RowMajorStrg extern, and fail to load without a definition). A variable cannot be forwarded:
// this is the process's one copy (or the program's, which a copy relocation makes the one all
// libraries bind to), and the CPU library underneath, loaded after cudrop, binds its own
// references to it through the global scope. Never in the preload library: there it would
// replace the CPU BLAS's own (tests/abi/exports.sh).
extern "C" {
__attribute__((visibility("default"))) int RowMajorStrg = 0;
__attribute__((visibility("default"))) int CBLAS_CallFromC = 0;
}
