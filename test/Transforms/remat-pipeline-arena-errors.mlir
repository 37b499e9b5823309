// RUN: remat-opt %s --split-input-file --remat-pipeline="solver=checkpoint-all budget=832" --verify-diagnostics -o /dev/null

// test/Transforms/remat-pipeline-arena.mlir's step with each value also
// read by the next one (v0 by v1, v2 by v3, v4 by v5): the live ranges are
// the same, so is the 832-byte sum-of-live peak and the 896-byte arena,
// but the order is now the only one. The exact planner proves 896 bytes
// optimal, no other order exists, and checkpoint-all cannot meet a lower
// target: the arena does not fit, and the error says what was tried and
// names the smallest feasible budget, its arena included.

#row = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
// expected-error @below {{the arena of 896 bytes exceeds the budget of 832 bytes, though the sum-of-live peak of 832 bytes fits it; tried the first arena of 896 bytes (best-fit-by-size) over the budget of 832 bytes with a sum-of-live peak of 832 bytes; exact offsets: 896 bytes (optimal), no better; other orders of the same computations: no smaller arena; solver target 768 bytes: no plan; the smallest feasible budget is 896 bytes, its arena included (raise the budget, or plan without the arena: arena=false)}}
func.func @fragmenting_chained(%x: tensor<1x16xf32>) -> tensor<f32> {
  %e0 = tensor.empty() : tensor<2x16xf32>
  %v0 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x16xf32>) outs(%e0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %e1 = tensor.empty() : tensor<5x16xf32>
  %v1 = linalg.generic {indexing_maps = [#row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %v0 : tensor<1x16xf32>, tensor<2x16xf32>) outs(%e1 : tensor<5x16xf32>) {
  ^bb0(%a: f32, %p: f32, %o: f32):
    %s = arith.addf %a, %p : f32
    %r = math.tanh %s : f32
    linalg.yield %r : f32
  } -> tensor<5x16xf32>
  %e2 = tensor.empty() : tensor<2x16xf32>
  %v2 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<5x16xf32>) outs(%e2 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %e3 = tensor.empty() : tensor<4x16xf32>
  %v3 = linalg.generic {indexing_maps = [#row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %v2 : tensor<1x16xf32>, tensor<2x16xf32>) outs(%e3 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %p: f32, %o: f32):
    %s = arith.addf %a, %p : f32
    %r = math.sin %s : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e4 = tensor.empty() : tensor<4x16xf32>
  %v4 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v3 : tensor<4x16xf32>) outs(%e4 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e5 = tensor.empty() : tensor<1x16xf32>
  %v5 = linalg.generic {indexing_maps = [#row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%v2, %v4 : tensor<2x16xf32>, tensor<4x16xf32>) outs(%e5 : tensor<1x16xf32>) {
  ^bb0(%a: f32, %p: f32, %o: f32):
    %s = arith.addf %a, %p : f32
    %r = math.tanh %s : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %e6 = tensor.empty() : tensor<4x16xf32>
  %v6 = linalg.generic {indexing_maps = [#row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%v0, %v5 : tensor<2x16xf32>, tensor<1x16xf32>) outs(%e6 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e7 = tensor.empty() : tensor<4x16xf32>
  %v7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%v6 : tensor<4x16xf32>) outs(%e7 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction", "reduction"]} ins(%v4, %v7 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
