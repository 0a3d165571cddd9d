/* The CPU library's own definition of a symbol that cudrop also exports: the first loaded
 * object other than libcudrop (either library) that defines it, found after a first cudrop call
 * has made cudrop load its CPU BLAS/LAPACK (dispatch_bench.c, forward_bench.c). */
#ifndef CUDROP_BENCH_LOADED_SYMBOL_H
#define CUDROP_BENCH_LOADED_SYMBOL_H
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

struct Search {
  const char *symbol;
  void *cudrop_fn;
  void *found;
  char name[512];
};

static int visit_loaded_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct Search *s = data;
  if (s->found || info->dlpi_name == NULL || info->dlpi_name[0] == '\0' || strstr(info->dlpi_name, "libcudrop"))
    return 0;
  void *handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == NULL) return 0;
  void *fn = dlsym(handle, s->symbol);
  if (fn != NULL && fn != s->cudrop_fn) {
    s->found = fn;
    snprintf(s->name, sizeof s->name, "%s", info->dlpi_name);
  }
  dlclose(handle);
  return 0;
}

/* Fills search->found and search->name (found stays NULL if no other object defines it). */
static inline void find_loaded_symbol(struct Search *search) { dl_iterate_phdr(visit_loaded_object, search); }
#endif
