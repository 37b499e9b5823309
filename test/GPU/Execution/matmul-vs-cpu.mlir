// The GPU computes what the CPU computes, within floating-point tolerance,
// and allocates the same bytes on the device as the CPU run on the heap.
//
// Tolerance: per result, |sum_gpu - sum_cpu| <= 1e-4 * sum|x_cpu| + 1e-5.
// The kernels run the same scalar operations in the same order per element
// (each reduction is sequential inside one thread), but NVPTX contracts
// a * b + c into fma, which rounds once instead of twice.
//
// Device bytes: the matmul result (64*16*4 = 4096 B), the ReLU result
// (4096 B) and the loss (4 B) are allocated by the step; the matmul result
// is freed after the bias kernel, before the loss is allocated:
// peak = 4096 + 4096 = 8192 B, exactly the CPU's heap peak.
//
// RUN: remat-run %s --json > %t.cpu.json
// RUN: remat-gpu-run %s --json > %t.gpu.json
// RUN: python3 %remat_src_root/tools/remat-gpu-run/compare-runs.py %t.cpu.json %t.gpu.json --same-peak | FileCheck %s
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.json
// CHECK: result #0 tensor<64x16xf32>: ok
// CHECK: result #1 tensor<f32>: ok
// CHECK: peak_bytes 8192 vs 8192: ok
// CHECK: OK
// GPU: "peak_bytes": 8192,
// GPU: "num_allocs": 3,
// GPU: "returned_bytes": 4100,
// GPU: "leaked_bytes": 0,
// GPU: "input_bytes": 10304,
// GPU: "num_launches": 5,

// Inputs: 64*32*4 + 32*16*4 + 16*4 = 8192 + 2048 + 64 = 10304 B.
func.func @step(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16xf32>)
    -> (tensor<64x16xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)
                     outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
  %e2 = tensor.empty() : tensor<64x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%m, %c : tensor<64x16xf32>, tensor<16xf32>) outs(%e2 : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x16xf32>
  %e3 = tensor.empty() : tensor<f32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%r : tensor<64x16xf32>) outs(%z3 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %q = arith.addf %in, %acc : f32
      linalg.yield %q : f32
    }
  return %r, %sum : tensor<64x16xf32>, tensor<f32>
}
