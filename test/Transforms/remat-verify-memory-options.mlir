// RUN: remat-opt %s --remat-verify-memory=budget=50% --verify-diagnostics -o /dev/null
// RUN: not remat-opt %s --remat-verify-memory=budget=lots --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// A percentage needs the plan's checkpoint-all peak.
// CHECK: error: invalid budget 'lots': expected a non-negative number of bytes, optionally with a B/KiB/MiB/GiB/TiB suffix, or a percentage such as 70%
// expected-error @below {{budget '50%' is a percentage but the function has no remat.plan to take the checkpoint-all peak from}}
func.func @no_plan(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
