# Writes the forwarders' list and a complete library's export list (run at build time with
# cmake -P, after exports.map): every function of abi/*.names that cudrop does not define itself.
#   FORWARDED_DEF  CUDROP_FORWARD(index, symbol, library, abi, suffixed, plain) per forwarded
#                  name: library blas, lapack or both (where the resolver looks for it); abi lp64
#                  or ilp64 (64-bit integers, found only in an ILP64 library: abi/forward.cpp);
#                  suffixed and plain, the names tried there (OpenBLAS's SYMBOLSUFFIX=64_
#                  spelling, and the unsuffixed one of Debian's libblas64.so.3). Included by
#                  abi/forwarders.S and abi/forward.cpp. Empty when NO_FORWARDERS is set (no
#                  assembly for this CPU).
#   FULL_MAP       the library's own names, the forwarded names and the reference CBLAS's two
#                  variables (abi/data.names, defined by abi/cblas_globals.cpp).
#   VARIANT        full (default): libcudrop_full, exports.map's names, the LP64 forwarders and
#                  the ILP64 ones under the suffixed names (dgemm_64_, cblas_dgemm64_), as an
#                  OpenBLAS built with INTERFACE64=1 SYMBOLSUFFIX=64_ exports them.
#                  64: libcudrop64, the ILP64 forwarders under the unsuffixed names (Debian's
#                  libblas64.so.3 ABI) and, of exports.map, the C functions (cudrop_version...) and
#                  the ILP64 entries' names unsuffixed (dgemm_64_ -> dgemm_): cudrop's own there.
# The names cudrop defines are subtracted here rather than their forwarders made weak: a weak
# definition would still be exported (as W, which some tools and linkers treat differently), its
# dead stub and slot would stay in the library, and a name dropped from routines.def would
# silently become a forwarder without anyone seeing the list change.
cmake_policy(VERSION 3.24)
if(NOT DEFINED VARIANT)
  set(VARIANT full)
endif()
foreach(var ABI_DIR EXPORTS_MAP FORWARDED_DEF FULL_MAP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "forwarders.cmake: ${var} not set")
  endif()
endforeach()

function(read_names file out)
  file(STRINGS ${file} lines REGEX "^[A-Za-z_][A-Za-z0-9_]*$")
  set(${out} ${lines} PARENT_SCOPE)
endfunction()

# exports.map's global list: between "global:" and "local:", comments removed, split at ';'.
file(READ ${EXPORTS_MAP} map)
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" map "${map}")
string(REGEX REPLACE "//[^\n]*" "" map "${map}")
string(REGEX MATCH "global:(.*)local:" map "${map}")
set(map "${CMAKE_MATCH_1}")
string(REGEX REPLACE "[ \t\r\n]" "" map "${map}")
set(own "${map}")  # "a;b;" is already a list
list(REMOVE_ITEM own "")
list(LENGTH own own_count)
if(own_count EQUAL 0)
  message(FATAL_ERROR "forwarders.cmake: no global list in ${EXPORTS_MAP}")
endif()
if(VARIANT STREQUAL "64")
  # cudrop's ILP64 entries (dgemm_64_, cblas_dgemm64_) are libcudrop64's under the unsuffixed
  # names (capi/exports64.cpp with CUDROP_ILP64_PLAIN); of the rest, only the C functions.
  set(own64 ${own})
  list(FILTER own64 INCLUDE REGEX "64_$")
  list(FILTER own64 EXCLUDE REGEX "^scipy_")  # the PyPI wheels' names: libcudrop and libcudrop_full only
  list(TRANSFORM own64 REPLACE "64_$" "")
  list(FILTER own INCLUDE REGEX "^cudrop_[a-z_]*[a-z]$")
  list(APPEND own ${own64})
endif()


read_names(${ABI_DIR}/blas.names blas)
read_names(${ABI_DIR}/cblas.names cblas)
read_names(${ABI_DIR}/lapack.names lapack)
read_names(${ABI_DIR}/data.names data)
list(APPEND blas ${cblas})
list(REMOVE_DUPLICATES blas)
# In both libraries (xerbla_, xerbla_array_, lsame_): whichever the process would have reached
# first (abi/forward.cpp).
set(both "")
foreach(name IN LISTS blas)
  if(name IN_LIST lapack)
    list(APPEND both ${name})
  endif()
endforeach()
list(REMOVE_ITEM blas ${both})
list(REMOVE_ITEM lapack ${both})

set(def "/* Written by cmake/forwarders.cmake from the abi/ name lists minus exports.map: do not edit. */\n")
set(map_text "/* Written by cmake/forwarders.cmake: exports.map's names plus the forwarders'. */\n{\n  global:\n")
foreach(name IN LISTS own data)
  string(APPEND map_text "    ${name};\n")
endforeach()
set(index 0)
if(NOT NO_FORWARDERS)
  foreach(library blas lapack both)
    foreach(name IN LISTS ${library})
      # OpenBLAS's SYMBOLSUFFIX rule: Fortran name_ -> name_64_, C cblas_name -> cblas_name64_.
      set(name64 "${name}64_")
      if(VARIANT STREQUAL "full" AND NOT name IN_LIST own)
        string(APPEND def "CUDROP_FORWARD(${index}, ${name}, ${library}, lp64, ${name}, ${name})\n")
        string(APPEND map_text "    ${name};\n")
        math(EXPR index "${index} + 1")
      endif()
      if(VARIANT STREQUAL "full")
        set(symbol ${name64})
      else()
        set(symbol ${name})
      endif()
      if(NOT symbol IN_LIST own)
        string(APPEND def "CUDROP_FORWARD(${index}, ${symbol}, ${library}, ilp64, ${name64}, ${name})\n")
        string(APPEND map_text "    ${symbol};\n")
        math(EXPR index "${index} + 1")
      endif()
    endforeach()
  endforeach()
endif()
string(APPEND map_text "  local: *;\n};\n")
string(APPEND def "#define CUDROP_FORWARD_COUNT ${index}\n")

file(WRITE ${FORWARDED_DEF} "${def}")
file(WRITE ${FULL_MAP} "${map_text}")
