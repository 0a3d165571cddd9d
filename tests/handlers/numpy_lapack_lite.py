"""numpy's lapack_lite defines its own xerbla_ (raising ValueError) in a module Python loads
RTLD_LOCAL. An illegal lda to lapack_lite.dgeqrf must raise that ValueError with cudrop
preloaded too, and the script must go on. Exit 77 when numpy is not installed."""
import sys

try:
    import numpy
    from numpy.linalg import lapack_lite
except ImportError:
    print("SKIP: no numpy")
    sys.exit(77)

m = n = 4
a = numpy.zeros((n, m))  # column-major m x n, as LAPACK sees a C-ordered n x m array
tau = numpy.zeros(min(m, n))
work = numpy.zeros(64)
try:
    lapack_lite.dgeqrf(m, n, a, 1, tau, work, work.size, 0)  # lda = 1 < m: parameter 4
except ValueError as error:
    print("ValueError:", error)
    if "DGEQRF" not in str(error) or "4" not in str(error):
        print("FAIL: not the message of DGEQRF's parameter 4")
        sys.exit(1)
else:
    print("FAIL: no ValueError for lda = 1")
    sys.exit(1)
print("numpy_lapack_lite: PASS (the script went on)")
