/* What an unprivileged user offers the secure_exec test's victim as its CPU BLAS/LAPACK: a
 * library whose constructor leaves a line in MARKER (a path given at compile time) saying
 * with which ids it ran. It defines no BLAS routine. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void leave_a_trace(void) {
  char line[128];
  snprintf(line, sizeof line, "loaded with euid=%d uid=%d\n", (int)geteuid(), (int)getuid());
  const int fd = open(MARKER, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (fd < 0) return;
  if (write(fd, line, strlen(line)) < 0) { /* the test sees no trace */ }
  close(fd);
}
