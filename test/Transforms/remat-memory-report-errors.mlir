// RUN: remat-opt %s --split-input-file --remat-memory-report="output=-" --verify-diagnostics -o /dev/null
// RUN: not remat-opt %s --split-input-file --remat-memory-report="output=%t/missing-dir/report.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: not remat-opt %s --split-input-file --remat-memory-report="function=missing" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING

// Bad input is a located error and no report.

func.func @dynamic(%n: index) {
  // expected-error @below {{'memref.alloc' op allocates memref<?xf32>, which has no static size}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// expected-error @below {{'func.func' op has a body of 2 blocks}}
func.func @blocks(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  return
}

// -----

// An unwritable output file is an error at the module.
// A `function` naming no function of the module is an error at the module.
// MISSING: error: remat-memory-report: no function named 'missing' with a body in the module
// OPEN: error: remat-memory-report: cannot open '{{.*}}missing-dir/report.json'
func.func @fine() {
  return
}

// -----

// The report does not trust a cost below the result type's size: the
// program would allocate 64 bytes where the cost says 16.
func.func @understated_cost(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error @below {{'linalg.copy' op has a 'remat.cost' of 16 bytes for result #0 (tensor<4x4xf32>), which takes 64 bytes}}
  %c = linalg.copy {remat.cost = #remat.cost<bytes = [16], flops = 0>} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}
