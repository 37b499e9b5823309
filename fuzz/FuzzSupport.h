//===- FuzzSupport.h - Shared helpers of the fuzz targets -------*- C++ -*-===//
//
// Part of the remat-opt project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_FUZZ_FUZZSUPPORT_H
#define REMAT_FUZZ_FUZZSUPPORT_H

#include <cstdio>
#include <cstdlib>

/// Aborts, so that libFuzzer keeps the input, when `holds` is false.
inline void require(bool holds, const char *property) {
  if (holds)
    return;
  std::fprintf(stderr, "property broken: %s\n", property);
  std::abort();
}

#endif // REMAT_FUZZ_FUZZSUPPORT_H
