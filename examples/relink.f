* relink.f: a Fortran 77 program that uses cudrop as its BLAS. Build it with nothing but
* what pkg-config says (no other BLAS library on the link line):
*
*   gfortran relink.f $(pkg-config --libs cudrop) -o relink_f77
*
* It calls SGEMM and DGEMM the way any Fortran program does, checks every result, and
* stops with status 1 on a mismatch.
      PROGRAM RELINK
      INTEGER N
      PARAMETER (N = 600)
      REAL A(2,3), B(3,2), C(2,2), WANT(2,2)
      DOUBLE PRECISION AD(4,3), BD(2,3), CD(3,3), WANTD(3,3)
      REAL AL(N,N), BL(N,N), CL(N,N)
      DOUBLE PRECISION REF, ERR, TOL
      INTEGER I, J, L, T, NFAIL, SEED
      EXTERNAL SGEMM, DGEMM
      NFAIL = 0
*
*     1. SGEMM, integer entries (exact): C = 2*A*B + C.
*        A = [1 3 5; 2 4 6], B = [7 10; 8 11; 9 12], A*B = [76 103; 100 136].
      DATA A / 1.0, 2.0, 3.0, 4.0, 5.0, 6.0 /
      DATA B / 7.0, 8.0, 9.0, 10.0, 11.0, 12.0 /
      DATA C / 1.0, -1.0, 2.0, -2.0 /
      DATA WANT / 153.0, 199.0, 208.0, 270.0 /
      CALL SGEMM('N', 'N', 2, 2, 3, 2.0, A, 2, B, 3, 1.0, C, 2)
      ERR = 0.0D0
      DO 20 J = 1, 2
         DO 10 I = 1, 2
            ERR = MAX(ERR, DBLE(ABS(C(I,J) - WANT(I,J))))
   10    CONTINUE
   20 CONTINUE
      CALL CHECK('SGEMM 2x3 * 3x2 (exact)', ERR, 0.0D0, NFAIL)
*
*     2. DGEMM, A transposed, LDA = 4 > K (rows 3..4 are padding):
*        A(1:2,1:3) = [1 3 5; 2 4 6], A**T * B with B = [1 0 1; 0 1 1].
      DO 40 J = 1, 3
         DO 30 I = 1, 4
            AD(I,J) = -1.0D10
   30    CONTINUE
   40 CONTINUE
      AD(1,1) = 1.0D0
      AD(2,1) = 2.0D0
      AD(1,2) = 3.0D0
      AD(2,2) = 4.0D0
      AD(1,3) = 5.0D0
      AD(2,3) = 6.0D0
      DATA BD / 1.0D0, 0.0D0, 0.0D0, 1.0D0, 1.0D0, 1.0D0 /
      DATA WANTD / 1.0D0, 3.0D0, 5.0D0, 2.0D0, 4.0D0, 6.0D0,
     $             3.0D0, 7.0D0, 11.0D0 /
      CALL DGEMM('Transpose', 'No transpose', 3, 3, 2, 1.0D0, AD, 4,
     $           BD, 2, 0.0D0, CD, 3)
      ERR = 0.0D0
      DO 60 J = 1, 3
         DO 50 I = 1, 3
            ERR = MAX(ERR, ABS(CD(I,J) - WANTD(I,J)))
   50    CONTINUE
   60 CONTINUE
      CALL CHECK('DGEMM A**T * B (exact)', ERR, 0.0D0, NFAIL)
*
*     3. SGEMM 600 x 600 x 600 (large enough for the GPU in auto mode);
*        64 entries checked against a double-precision dot product.
      SEED = 4711
      DO 80 J = 1, N
         DO 70 I = 1, N
            SEED = MOD(SEED * 1103 + 12345, 65536)
            AL(I,J) = REAL(SEED) / 32768.0 - 1.0
            SEED = MOD(SEED * 1103 + 12345, 65536)
            BL(I,J) = REAL(SEED) / 32768.0 - 1.0
   70    CONTINUE
   80 CONTINUE
      CALL SGEMM('N', 'N', N, N, N, 1.0, AL, N, BL, N, 0.0, CL, N)
      ERR = 0.0D0
      DO 100 T = 0, 63
         I = MOD(T * 97, N) + 1
         J = MOD(T * 389 + 11, N) + 1
         REF = 0.0D0
         DO 90 L = 1, N
            REF = REF + DBLE(AL(I,L)) * DBLE(BL(L,J))
   90    CONTINUE
         ERR = MAX(ERR, ABS(DBLE(CL(I,J)) - REF))
  100 CONTINUE
*     |error| <= N * eps * max|A| * max|B|, eps = 2**-23.
      TOL = DBLE(N) * 1.1920929D-7
      CALL CHECK('SGEMM 600**3 (64 entries vs double)', ERR, TOL, NFAIL)
*
      IF (NFAIL .NE. 0) THEN
         WRITE (*, '(A)') 'relink.f: FAIL'
         STOP 1
      END IF
      WRITE (*, '(A)') 'relink.f: PASS'
      END
*
      SUBROUTINE CHECK(WHAT, ERR, TOL, NFAIL)
      CHARACTER*(*) WHAT
      DOUBLE PRECISION ERR, TOL
      INTEGER NFAIL
      IF (ERR .LE. TOL) THEN
         WRITE (*, '(A, A, 1PE10.3, A)') WHAT, ': max error ', ERR,
     $      ' ok'
      ELSE
         WRITE (*, '(A, A, 1PE10.3, A)') WHAT, ': max error ', ERR,
     $      ' WRONG'
         NFAIL = NFAIL + 1
      END IF
      END
