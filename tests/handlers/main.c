/* The program of the handlers matrix: `main CASE` makes the illegal call of CASE itself
 * (calls.c linked in), `main CASE LIBRARY` through LIBRARY loaded RTLD_LOCAL. It prints a
 * line once the call has returned, so that the comparison sees whether the program went on. */
#include <dlfcn.h>
#include <stdio.h>

int run_case(const char *name);

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int (*run)(const char *) = 0;
#ifdef CALLS_IN_LIBRARY
  if (argc < 3) return 2;
  void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (library == 0) { printf("dlopen: %s\n", dlerror()); return 3; }
  run = (int (*)(const char *))dlsym(library, "run_case");
  if (run == 0) { printf("dlsym: %s\n", dlerror()); return 3; }
#else
  run = run_case;
#endif
  printf("calling %s\n", argv[1]);
  fflush(stdout);
  const int status = run(argv[1]);
  printf("%s returned\n", argv[1]);
  return status;
}
