// linalg.softmax is costed by the cost model and must also run: the CPU
// lowering decomposes it (remat-decompose-aggregated-ops) before
// bufferization, since convert-linalg-to-loops cannot lower it.
//
// RUN: remat-run %s --print-results --pipeline='remat-lower-to-cpu{arena=false}' | FileCheck %s
// RUN: remat-run %s | FileCheck %s --check-prefix=ARENA
// Planned and rematerialized first, the step computes the same bits.
// RUN: remat-run %s | grep '^result' > %t.plain
// RUN: remat-opt %s --remat-pipeline 2>/dev/null | remat-run - | grep '^result' | diff %t.plain -
// The lowering leaves no softmax and no unrealized cast behind.
// RUN: remat-run %s --print-lowered | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: softmax
// LOWERED-NOT: unrealized_conversion_cast
// LOWERED: llvm.func @softmax_step(

// Input (docs/Running.md): x[i] = sin(0.1 * i) * 0.5, i = 0..5, so the rows
// are [0, 0.0499167, 0.0993347] and [0.1477601, 0.1947092, 0.2397128].
// softmax(row)_j = exp(x_j - max) / sum_k exp(x_k - max):
//   row 0: [0.3168950, 0.3331148, 0.3499902]
//   row 1: [0.3180276, 0.3333147, 0.3486577]
// Each row sums to 1: the result sums to 2 (up to float rounding).
// Heap: the 2x3 result (24 bytes), which exp(x - max) and the division write
// in place, plus one 2-element reduction at a time (the max dies before the
// sum is made, 8 bytes each): 32 bytes, 8 more than the cost model's 24,
// each buffer on its own. In one arena with 16-byte offsets the result
// takes 32 and the reduction 16 (both reductions at one offset): 48.
// ARENA: peak_bytes: 48{{$}}
// CHECK:      entry: @softmax_step
// CHECK-NEXT: result #0: tensor<2x3xf32> sum={{2|1.9999[0-9]*|2.0000[0-9]*}} abs_sum=
// CHECK-NEXT:   values: [0.316895{{[0-9]*}}, 0.333114{{[0-9]*}}, 0.349990{{[0-9]*}}, 0.318027{{[0-9]*}}, 0.333314{{[0-9]*}}, 0.348657{{[0-9]*}}]
// CHECK-NEXT: peak_bytes: 32{{$}}
func.func @softmax_step(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %init = tensor.empty() : tensor<2x3xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf32>)
                                   outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
