# Install rules and the exported CMake package (find_package(Remat CONFIG)).
#
#   cmake --install build --prefix P
#
# installs the headers (include/remat and the generated .inc files), the
# libraries, exported as Remat::<name> in P/lib/cmake/remat, the tools and
# RematPlugin.so. See docs/Embedding.md.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(REMAT_INSTALL_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/remat" CACHE
  STRING "Where RematConfig.cmake is installed, relative to the prefix")

# Libraries a client links, in dependency order.
set(REMAT_EXPORTED_LIBRARIES
  RematSupport
  RematToolSupport
  RematDialect
  RematAnalysis
  RematSolverCore
  RematSolverCheckmate
  RematSolverArena
  RematSolverAlgorithms
  RematSolver
  RematSolverIO
  RematTransforms
  RematConversion
  RematPipelines
  RematRunnerSupport
  remat_alloc_tracker
  )

# Headers come from the source tree and the generated .inc files while
# building, from P/include once installed; MLIR's and LLVM's own headers are
# found where the MLIR package the project was built against put them.
set(REMAT_UPSTREAM_INCLUDE_DIRS ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
list(REMOVE_DUPLICATES REMAT_UPSTREAM_INCLUDE_DIRS)
foreach(lib IN LISTS REMAT_EXPORTED_LIBRARIES)
  set_property(TARGET ${lib} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
    $<BUILD_INTERFACE:${REMAT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${REMAT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  foreach(dir IN LISTS REMAT_UPSTREAM_INCLUDE_DIRS)
    set_property(TARGET ${lib} APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
      $<INSTALL_INTERFACE:${dir}>)
  endforeach()
endforeach()

install(TARGETS ${REMAT_EXPORTED_LIBRARIES}
  EXPORT RematTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Solver/Testing's library (RematSolverTesting) is not installed; nor are its
# headers.
install(DIRECTORY ${REMAT_SOURCE_DIR}/include/remat
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  REGEX "/Solver/Testing(/.*)?$" EXCLUDE)
install(DIRECTORY ${REMAT_BINARY_DIR}/include/remat
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# remat-gpu-run is not installed: it loads the CUDA runtime library from the
# build tree. Installed tools find libMLIR.so/libLLVM.so where MLIR is
# installed and remat_alloc_tracker next to them.
foreach(target remat-opt remat-run remat-solve)
  set_property(TARGET ${target} PROPERTY INSTALL_RPATH
    "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR}" "${LLVM_LIBRARY_DIR}")
endforeach()
install(TARGETS remat-opt remat-run remat-solve
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET RematPlugin)
  install(TARGETS RematPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(REMAT_HAS_PLUGIN 1)
else()
  set(REMAT_HAS_PLUGIN 0)
endif()

install(FILES ${REMAT_SOURCE_DIR}/LICENSE
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/remat)

install(EXPORT RematTargets
  NAMESPACE Remat::
  DESTINATION ${REMAT_INSTALL_PACKAGE_DIR})

configure_package_config_file(
  ${REMAT_SOURCE_DIR}/cmake/RematConfig.cmake.in
  ${REMAT_BINARY_DIR}/cmake/RematConfig.cmake
  INSTALL_DESTINATION ${REMAT_INSTALL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${REMAT_BINARY_DIR}/cmake/RematConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${REMAT_BINARY_DIR}/cmake/RematConfig.cmake
  ${REMAT_BINARY_DIR}/cmake/RematConfigVersion.cmake
  DESTINATION ${REMAT_INSTALL_PACKAGE_DIR})
