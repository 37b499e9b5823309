// RUN: remat-opt %s --split-input-file --verify-diagnostics \
// RUN:   --remat-annotate-costs="dynamic-size-hint=8 allow-unknown" | FileCheck %s
// RUN: not remat-opt %s --remat-annotate-costs="dynamic-size-hint=-1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: remat-annotate-costs: dynamic-size-hint must be positive (or 0 for none), got -1

// With dynamic-size-hint=8 every dynamic dimension counts as 8, with a warning.

// CHECK-LABEL: func.func @dynamic_hint
func.func @dynamic_hint(%a: tensor<?x64xf32>, %b: tensor<64x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // M = N = 8 (hint), K = 64: 2*8*8*64 = 8192 FLOPs; 8*8*4 = 256 bytes.
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [256], flops = 8192>}
  // expected-warning @below {{cost assumes every dynamic dimension has size 8}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  // A static op needs no hint and gets no warning.
  // CHECK: tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  // A static loop range wins over a dynamic dimension of another operand:
  // the loop d1 is 64 (from %b), d0 = 8 (hint): 8*64 = 512 elements, 1 op each.
  // CHECK: linalg.generic {{.*}}remat.cost = #remat.cost<bytes = [2048], flops = 512>
  // expected-warning @below {{cost assumes every dynamic dimension has size 8}}
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x64xf32>) outs(%a : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<?x64xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func private @callee(tensor<4x8xf32>) -> (tensor<4x8xf32>, i32)

// With allow-unknown, an unsupported op gets bytes from its result types and
// 0 FLOPs, with a warning; the ops nested in its regions are costed as usual.

// CHECK-LABEL: func.func @allow_unknown
func.func @allow_unknown(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // 4*8*4 = 128 bytes; the i32 result is a scalar: 0 bytes.
  // CHECK: call @callee({{.*}}) {remat.cost = #remat.cost<bytes = [128, 0], flops = 0>}
  // expected-warning @below {{'func.call' is not supported by the cost model; assuming bytes from its result types and 0 FLOPs}}
  %0:2 = func.call @callee(%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, i32)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: scf.for
  // 32 elements, one add each.
  // CHECK: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [128], flops = 32>}
  // The loop itself is costed from its body (4 trips x 32), no fallback.
  // CHECK: } {remat.cost = #remat.cost<bytes = [128], flops = 128>}
  %1 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %0#0) -> (tensor<4x8xf32>) {
    %2 = arith.addf %acc, %acc : tensor<4x8xf32>
    scf.yield %2 : tensor<4x8xf32>
  }
  return %1 : tensor<4x8xf32>
}
