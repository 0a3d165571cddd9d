# The system-wide installation: the stand-in directory, the man pages, and the Debian package
# (`cpack -G DEB` in the build tree writes cudrop_<version>_<arch>.deb).
#
# The stand-in directory, <prefix>/lib/<triplet>/cudrop/, holds libblas.so.3 and liblapack.so.3,
# both links to the complete library: what the package registers in Debian's libblas.so.3 and
# liblapack.so.3 alternatives, and what a user can put on LD_LIBRARY_PATH to try cudrop as the
# system libraries without installing anything (the build tree has one too: standin/). Where
# libcudrop64 is built (x86-64), it also holds libblas64.so.3 and liblapack64.so.3, links to
# libcudrop64.so.0, for Debian's 64-bit-integer libblas64.so.3 / liblapack64.so.3 alternatives.
# The package installs under /usr with the build's library directory: configure with
# -DCMAKE_INSTALL_PREFIX=/usr for Debian's multiarch layout (/usr/lib/<triplet>); a tree
# configured for another prefix puts the libraries in /usr/lib, also on the loader's path.

if(CMAKE_LIBRARY_ARCHITECTURE)
  set(CUDROP_TRIPLET ${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(CUDROP_TRIPLET ${CMAKE_SYSTEM_PROCESSOR}-linux-gnu)
endif()
set(CUDROP_STANDIN_INSTALL_DIR lib/${CUDROP_TRIPLET}/cudrop)
set(CUDROP_FULL_SONAME libcudrop_full.so.${PROJECT_VERSION_MAJOR})
set(CUDROP_SONAME64 libcudrop64.so.${PROJECT_VERSION_MAJOR})

# The links, relative so that any prefix works: made here and copied as links by install();
# and the build tree's stand-in directory, beside the complete library (the standin tests use
# it), made here rather than by a build step: a step that always runs would replace the links
# while a test (deb_package's cpack builds what is out of date) may be loading through them.
file(RELATIVE_PATH cudrop_standin_target "/${CUDROP_STANDIN_INSTALL_DIR}"
     "/${CMAKE_INSTALL_LIBDIR}/${CUDROP_FULL_SONAME}")
set(cudrop_standin_links ${CMAKE_CURRENT_BINARY_DIR}/install-standin)
set(CUDROP_BUILD_STANDIN_DIR ${CMAKE_CURRENT_BINARY_DIR}/standin)
file(MAKE_DIRECTORY ${cudrop_standin_links} ${CUDROP_BUILD_STANDIN_DIR})
foreach(name libblas.so.3 liblapack.so.3)
  file(CREATE_LINK ${cudrop_standin_target} ${cudrop_standin_links}/${name} SYMBOLIC)
  install(FILES ${cudrop_standin_links}/${name} DESTINATION ${CUDROP_STANDIN_INSTALL_DIR})
  file(CREATE_LINK ../${CUDROP_FULL_SONAME} ${CUDROP_BUILD_STANDIN_DIR}/${name} SYMBOLIC)
endforeach()
if(TARGET cudrop64)
  file(RELATIVE_PATH cudrop_standin_target64 "/${CUDROP_STANDIN_INSTALL_DIR}"
       "/${CMAKE_INSTALL_LIBDIR}/${CUDROP_SONAME64}")
  foreach(name libblas64.so.3 liblapack64.so.3)
    file(CREATE_LINK ${cudrop_standin_target64} ${cudrop_standin_links}/${name} SYMBOLIC)
    install(FILES ${cudrop_standin_links}/${name} DESTINATION ${CUDROP_STANDIN_INSTALL_DIR})
    file(CREATE_LINK ../${CUDROP_SONAME64} ${CUDROP_BUILD_STANDIN_DIR}/${name} SYMBOLIC)
  endforeach()
endif()

install(FILES docs/man/cudrop.7 DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
install(FILES docs/man/cudrop-info.1 docs/man/cudrop-run.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The documents cudrop(7) points to: tuning knobs and test hooks, semantics, security, 3xTF32.
install(FILES docs/tuning.md docs/semantics.md docs/security.md docs/sgemm-3xtf32.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Debian's providers of libblas.so.3/liblapack.so.3 register at: OpenBLAS 100 (pthread; 95
# openmp, 90 serial), BLIS below it, the reference libraries 10. 110 puts cudrop first in auto
# mode, so installing it is switching to it; it forwards what it does not accelerate to the
# best CPU library it finds underneath, which therefore must exist (Depends).
set(CUDROP_ALTERNATIVES_PRIORITY 110)
set(CUDROP_ILP64_STANDIN "")  # the maintainer scripts' ILP64 names: none without libcudrop64
if(TARGET cudrop64)
  set(CUDROP_ILP64_STANDIN "libblas64.so.3 liblapack64.so.3")
endif()
set(cudrop_deb_dir ${CMAKE_CURRENT_BINARY_DIR}/deb-control)
configure_file(cmake/deb/postinst.in ${cudrop_deb_dir}/postinst @ONLY)
configure_file(cmake/deb/prerm.in ${cudrop_deb_dir}/prerm @ONLY)
configure_file(cmake/deb/triggers ${cudrop_deb_dir}/triggers COPYONLY)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cudrop)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "cudrop maintainers <cudrop@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "drop-in BLAS/LAPACK for NVIDIA GPUs")
set(CPACK_PACKAGE_DESCRIPTION
"cudrop runs BLAS and LAPACK calls on an NVIDIA GPU with its own CUDA kernels, from unmodified
programs: the Level 3 BLAS; LU, Cholesky and the linear solves; QR (?geqrf_, ?ormqr_/?unmqr_,
?orgqr_/?ungqr_, ?gels_) and LQ (?gelqf_, ?ormlq_/?unmlq_, ?orglq_/?unglq_); the symmetric and Hermitian eigensolvers (?syevd_/?heevd_,
?syev_/?heev_); ScaLAPACK's p?potrf_/p?getrf_ under MPI; the power method. Small calls, every
other routine, and every call on a machine without a usable GPU, go to the CPU BLAS/LAPACK
underneath. This package registers cudrop in the
libblas.so.3 and liblapack.so.3 alternatives, above OpenBLAS, and libcudrop64 (64-bit integers)
in the libblas64.so.3 and liblapack64.so.3 ones: programs linked with the system BLAS/LAPACK use
it, and `update-alternatives --config libblas.so.3-${CUDROP_TRIPLET}` switches
back. It also ships libcudrop.so (for LD_PRELOAD) with cudrop-run, which runs a program with
it preloaded, the header, pkg-config and CMake files, cudrop-info and the man pages cudrop(7),
cudrop-info(1) and cudrop-run(1).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libblas3 | libopenblas0 | libblas.so.3, liblapack3 | libopenblas0 | liblapack.so.3")
# libcudrop64 forwards everything to an ILP64 library; only programs linked against one use it.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libopenblas64-0 | libblas64-3, libopenblas64-0 | liblapack64-3")
find_program(CUDROP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(CUDROP_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)       # libc6, libstdc++6, libgcc-s1 with versions
else()
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libc6, libstdc++6, libgcc-s1")
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${cudrop_deb_dir}/postinst ${cudrop_deb_dir}/prerm ${cudrop_deb_dir}/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
# CPack's Installed-Size counts each symbolic link as its target: the true size instead.
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/deb-installed-size.cmake)
include(CPack)
