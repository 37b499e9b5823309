# Thin project wrappers over the upstream MLIR CMake helpers.

# A library of remat-opt that uses MLIR. MLIR dependencies are given with
# MLIR_LIBS so that they link libMLIR.so or the static libraries, never both.
function(add_remat_library name)
  cmake_parse_arguments(ARG "" "" "MLIR_LIBS;DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS ${ARG_LINK_LIBS})
  mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
endfunction()

# A plain C++ library that knows nothing of MLIR (the solver library).
function(add_remat_plain_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${REMAT_SOURCE_DIR}/include)
endfunction()
