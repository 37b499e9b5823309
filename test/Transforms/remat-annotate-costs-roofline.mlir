// RUN: remat-opt %s --split-input-file --remat-annotate-costs="device=h100" | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-annotate-costs="device=a100" | FileCheck %s --check-prefix=A100
// RUN: remat-opt %s --split-input-file --remat-annotate-costs="device=h200" | FileCheck %s --check-prefix=H200
// RUN: remat-opt %s --split-input-file --remat-annotate-costs | FileCheck %s --check-prefix=FLOPS

// The roofline time: max(flops / peak, bytes moved / HBM bandwidth) in
// picoseconds, rounded to the nearest. Bytes moved = tensor operands read +
// tensor results written. Data sheets (include/remat/Analysis/Devices.h):
//   h100: FP32 67e12, FP64 34e12, BF16 tensor core 989.5e12 FLOP/s, 3.35e12 B/s
//   h200: the h100's peaks, 4.8e12 B/s
//   a100: FP32 19.5e12, BF16 tensor core 312e12 FLOP/s, 2.039e12 B/s
// 1 MiB = 1048576 bytes.

// CHECK-LABEL: func.func @pointwise
// CHECK-SAME:    remat.cost_device = "h100"
// FLOPS-LABEL: func.func @pointwise
// FLOPS-NOT:     remat.cost_device
func.func @pointwise(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  // 1 MiB elements: 1048576 FLOPs (15650 ps at 67e12) but 3 x 4 MiB moved
  // (two operands, one result): 12582912 / 3.35e12 s = 3756093 ps. A
  // pointwise op is memory-bound.
  // CHECK: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [4194304], flops = 1048576, roofline_ps = 3756093>}
  // FLOPS: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [4194304], flops = 1048576>}
  %0 = arith.addf %a, %b : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_f32
func.func @matmul_f32(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  // No kernel: 0.
  // CHECK: tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0, roofline_ps = 0>}
  %init = tensor.empty() : tensor<1024x1024xf32>
  // The fill writes 4 MiB and reads nothing (its destination's value is
  // unused): 4194304 / 3.35e12 s = 1252031 ps.
  // CHECK: linalg.fill {remat.cost = #remat.cost<bytes = [4194304], flops = 0, roofline_ps = 1252031>}
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  // 2 x 1024^3 = 2147483648 FLOPs at the FP32 peak (no TF32: PyTorch's
  // default for matmuls): 2147483648 / 67e12 s = 32051995 ps. Bytes: A, B
  // and the accumulator read, the result written = 16 MiB = 5008124 ps.
  // Compute-bound.
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [4194304], flops = 2147483648, roofline_ps = 32051995>}
  // A100-LABEL: func.func @matmul_f32
  // 2147483648 / 19.5e12 s = 110127367 ps.
  // A100: linalg.matmul {remat.cost = #remat.cost<bytes = [4194304], flops = 2147483648, roofline_ps = 110127367>}
  %mm = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                      outs(%fill : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  // A view runs no kernel.
  // CHECK: tensor.collapse_shape {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0, roofline_ps = 0>}
  %flat = tensor.collapse_shape %mm [[0, 1]] : tensor<1024x1024xf32> into tensor<1048576xf32>
  %back = tensor.expand_shape %flat [[0, 1]] output_shape [1024, 1024] : tensor<1048576xf32> into tensor<1024x1024xf32>
  return %back : tensor<1024x1024xf32>
}

// -----

// A contraction on bf16 runs at the dense BF16 tensor-core peak.
// CHECK-LABEL: func.func @matmul_bf16
// A100-LABEL: func.func @matmul_bf16
// H200-LABEL: func.func @matmul_bf16
func.func @matmul_bf16(%a: tensor<2048x2048xbf16>, %b: tensor<2048x2048xbf16>, %c: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  // 2 x 2048^3 = 17179869184 FLOPs (the extf casts count 0). Bytes: A and B
  // 8 MiB each, the f32 accumulator 16 MiB read and 16 MiB written: 48 MiB.
  //   h100: 17179869184 / 989.5e12 s = 17362172 ps; 50331648 / 3.35e12 s = 15024373 ps
  //   a100: / 312e12 s = 55063683 ps; / 2.039e12 s = 24684477 ps
  //   h200: 17362172 ps; 50331648 / 4.8e12 s = 10485760 ps
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [16777216], flops = 17179869184, roofline_ps = 17362172>}
  // A100: linalg.matmul {remat.cost = #remat.cost<bytes = [16777216], flops = 17179869184, roofline_ps = 55063683>}
  // H200: linalg.matmul {remat.cost = #remat.cost<bytes = [16777216], flops = 17179869184, roofline_ps = 17362172>}
  %0 = linalg.matmul ins(%a, %b : tensor<2048x2048xbf16>, tensor<2048x2048xbf16>)
                     outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

// -----

// Not a contraction (no multiply), so no tensor core: f64 at the FP64 peak,
// f32 at the FP32 peak. Loops 1024 x 1024, payload subf + exp + addf = 3:
// 3145728 FLOPs; bytes 8 KiB + 8 KiB read, the accumulator read and written.
#i = affine_map<(i, j) -> (i)>
#j = affine_map<(i, j) -> (j)>
// CHECK-LABEL: func.func @kernel_sum
func.func @kernel_sum(%x: tensor<1024xf64>, %y: tensor<1024xf64>, %acc: tensor<1024xf64>,
                      %x32: tensor<1024xf32>, %y32: tensor<1024xf32>, %acc32: tensor<1024xf32>)
    -> (tensor<1024xf64>, tensor<1024xf32>) {
  // 3145728 / 34e12 s = 92521 ps (memory: 32768 / 3.35e12 s = 9781 ps).
  // CHECK: linalg.generic {{.*}} {remat.cost = #remat.cost<bytes = [8192], flops = 3145728, roofline_ps = 92521>}
  %0 = linalg.generic {indexing_maps = [#i, #j, #i], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<1024xf64>, tensor<1024xf64>) outs(%acc : tensor<1024xf64>) {
  ^bb0(%a: f64, %b: f64, %s: f64):
    %d = arith.subf %a, %b : f64
    %e = math.exp %d : f64
    %t = arith.addf %s, %e : f64
    linalg.yield %t : f64
  } -> tensor<1024xf64>
  // 3145728 / 67e12 s = 46951 ps.
  // CHECK: linalg.generic {{.*}} {remat.cost = #remat.cost<bytes = [4096], flops = 3145728, roofline_ps = 46951>}
  %1 = linalg.generic {indexing_maps = [#i, #j, #i], iterator_types = ["parallel", "reduction"]}
      ins(%x32, %y32 : tensor<1024xf32>, tensor<1024xf32>) outs(%acc32 : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %t = arith.addf %s, %e : f32
    linalg.yield %t : f32
  } -> tensor<1024xf32>
  return %0, %1 : tensor<1024xf64>, tensor<1024xf32>
}

// -----

// A cost written by hand keeps its bytes and FLOPs; the device prices it
// from them: 1e9 FLOPs / 67e12 = 14925373 ps (memory: 32 bytes, 10 ps).
// CHECK-LABEL: func.func @by_hand
func.func @by_hand(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: math.tanh {{.*}} {remat.cost = #remat.cost<bytes = [16], flops = 1000000000, roofline_ps = 14925373>}
  %0 = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 1000000000>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
