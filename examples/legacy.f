* legacy.f: an ordinary Fortran 77 program, linked the usual way against the system BLAS
* (-lblas). It knows nothing of cudrop; run it as it is, then with cudrop slipped under it,
* and compare the printed checksums:
*
*   ./legacy_f77                                    # the system BLAS
*   LD_PRELOAD=/path/to/libcudrop.so ./legacy_f77   # the same calls, large ones on the GPU
*
* The data are deterministic (a Lehmer generator in exact double arithmetic), so every run
* multiplies the same matrices. Per call it prints SUM(C), SUM(|C|), C(1,1) and C(M,N). Two
* correct BLAS agree in the leading digits; how many depends on the size: the results differ
* by rounding, relative 1E-7 * SQRT(K) or so for single precision.
      PROGRAM LEGACY
      INTEGER MAXMN, MAXK
      PARAMETER (MAXMN = 3001 * 3000, MAXK = 3001 * 2999)
      REAL A(MAXK), B(MAXK), C(MAXMN)
      DOUBLE PRECISION SEED
      INTEGER CALLNO
      COMMON /STATE/ SEED
      SEED = 20231121.0D0
      CALLNO = 0
      WRITE (*, '(A)') ' call transa transb     m     n     k  lda'//
     $   '          sum(C)                  sum(|C|)'//
     $   '                 C(1,1)                   C(m,n)'
*     Small calls, with leading dimensions larger than needed.
      CALL RUN(CALLNO, 'N', 'N', 32, 32, 32, 40, 40, 40, A, B, C)
      CALL RUN(CALLNO, 'T', 'N', 32, 32, 32, 32, 32, 32, A, B, C)
      CALL RUN(CALLNO, 'N', 'N', 64, 64, 64, 70, 70, 70, A, B, C)
      CALL RUN(CALLNO, 'N', 'T', 64, 64, 64, 64, 64, 64, A, B, C)
*     Large calls.
      CALL RUN(CALLNO, 'N', 'N', 2048, 2048, 2048, 2048, 2048, 2048,
     $         A, B, C)
      CALL RUN(CALLNO, 'T', 'N', 3001, 2999, 1003, 1003, 1003, 3001,
     $         A, B, C)
      END
*
*     Fills A (op(A) is M x K) and B (K x N) with pseudo-random values in [-1, 1), C with
*     values too (BETA = 0.5 reads it), calls SGEMM, prints the checksums.
      SUBROUTINE RUN(CALLNO, TA, TB, M, N, K, LDA, LDB, LDC, A, B, C)
      INTEGER CALLNO, M, N, K, LDA, LDB, LDC
      CHARACTER TA, TB
      REAL A(LDA, *), B(LDB, *), C(LDC, *)
      INTEGER I, J, RA, CA, RB, CB
      DOUBLE PRECISION S, SA
      EXTERNAL FILL, SGEMM
      CALLNO = CALLNO + 1
      IF (TA .EQ. 'N') THEN
         RA = M
         CA = K
      ELSE
         RA = K
         CA = M
      END IF
      IF (TB .EQ. 'N') THEN
         RB = K
         CB = N
      ELSE
         RB = N
         CB = K
      END IF
      CALL FILL(A, LDA, RA, CA)
      CALL FILL(B, LDB, RB, CB)
      CALL FILL(C, LDC, LDC, N)
      CALL SGEMM(TA, TB, M, N, K, 1.0, A, LDA, B, LDB, 0.5, C, LDC)
      S = 0.0D0
      SA = 0.0D0
      DO 80 J = 1, N
         DO 70 I = 1, M
            S = S + DBLE(C(I,J))
            SA = SA + ABS(DBLE(C(I,J)))
   70    CONTINUE
   80 CONTINUE
      WRITE (*, '(I5, 2(6X, A1), 4I6, 4(1PE25.16))') CALLNO, TA, TB,
     $   M, N, K, LDA, S, SA, DBLE(C(1,1)), DBLE(C(M,N))
      END
*
*     X(1:NR, 1:NC) pseudo-random; the rows below NR, up to LDX, -1E10 (a BLAS that reads
*     them shows it in the checksums).
      SUBROUTINE FILL(X, LDX, NR, NC)
      INTEGER LDX, NR, NC
      REAL X(LDX, *)
      INTEGER I, J
      REAL RNDM
      EXTERNAL RNDM
      DO 20 J = 1, NC
         DO 10 I = 1, LDX
            IF (I .LE. NR) THEN
               X(I,J) = RNDM()
            ELSE
               X(I,J) = -1.0E10
            END IF
   10    CONTINUE
   20 CONTINUE
      END
*
*     Lehmer generator x <- 16807 x mod (2**31 - 1), exact in DOUBLE PRECISION.
      REAL FUNCTION RNDM()
      DOUBLE PRECISION SEED
      COMMON /STATE/ SEED
      SEED = MOD(16807.0D0 * SEED, 2147483647.0D0)
      RNDM = REAL(2.0D0 * SEED / 2147483647.0D0 - 1.0D0)
      END
