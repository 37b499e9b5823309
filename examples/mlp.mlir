// examples/mlp.mlir - One SGD training step of a 3-layer MLP (hand-written).
//
// Model (batch B = 8, widths 32 -> 64 -> 64 -> 10):
//   z1 = x  W1 + b1,  a1 = relu(z1)
//   z2 = a1 W2 + b2,  a2 = relu(z2)
//   z3 = a2 W3 + b3                       (logits)
//   loss = -(1/B) sum_{b,c} y[b,c] * log_softmax(z3)[b,c]
// Backward (written by hand):
//   dz3 = (softmax(z3) - y) / B
//   dW3 = a2^T dz3,  db3 = sum_b dz3,  da2 = dz3 W3^T,  dz2 = da2 * [z2 > 0]
//   dW2 = a1^T dz2,  db2 = sum_b dz2,  da1 = dz2 W2^T,  dz1 = da1 * [z1 > 0]
//   dW1 = x^T  dz1,  db1 = sum_b dz1
// SGD update with learning rate 0.1: p' = p - 0.1 * dp.
//
// @mlp_step(W1, b1, W2, b2, W3, b3, x, y) -> (loss, W1', b1', W2', b2', W3', b3')
// The forward activations z1, a1, z2, a2 and the softmax intermediates are
// used again by the backward part: they are what a checkpointing planner
// decides to keep or recompute. Pure tensor IR, no side effects.
//
// Driver: examples/mlp.run.mlir (see examples/README.md).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
#all = affine_map<(d0, d1) -> ()>
#id0 = affine_map<() -> ()>

func.func @mlp_step(%w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
                    %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                    %w3: tensor<64x10xf32>, %b3: tensor<10xf32>,
                    %x: tensor<8x32xf32>, %y: tensor<8x10xf32>)
    -> (tensor<f32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %lr = arith.constant 0.1 : f32
  %inv_batch = arith.constant 0.125 : f32

  //===--------------------------------------------------------------------===//
  // Forward.
  //===--------------------------------------------------------------------===//

  // Layer 1: z1 = x W1 + b1, a1 = relu(z1).
  %mm1_init = tensor.empty() : tensor<8x64xf32>
  %mm1_zero = linalg.fill ins(%zero : f32) outs(%mm1_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mm1 = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x64xf32>)
                       outs(%mm1_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z1_init = tensor.empty() : tensor<8x64xf32>
  %z1 = linalg.generic {indexing_maps = [#id2, #row, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%mm1, %b1 : tensor<8x64xf32>, tensor<64xf32>) outs(%z1_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %a1_init = tensor.empty() : tensor<8x64xf32>
  %a1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z1 : tensor<8x64xf32>) outs(%a1_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>

  // Layer 2: z2 = a1 W2 + b2, a2 = relu(z2).
  %mm2_init = tensor.empty() : tensor<8x64xf32>
  %mm2_zero = linalg.fill ins(%zero : f32) outs(%mm2_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mm2 = linalg.matmul ins(%a1, %w2 : tensor<8x64xf32>, tensor<64x64xf32>)
                       outs(%mm2_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z2_init = tensor.empty() : tensor<8x64xf32>
  %z2 = linalg.generic {indexing_maps = [#id2, #row, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%mm2, %b2 : tensor<8x64xf32>, tensor<64xf32>) outs(%z2_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %a2_init = tensor.empty() : tensor<8x64xf32>
  %a2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z2 : tensor<8x64xf32>) outs(%a2_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>

  // Layer 3: z3 = a2 W3 + b3 (logits).
  %mm3_init = tensor.empty() : tensor<8x10xf32>
  %mm3_zero = linalg.fill ins(%zero : f32) outs(%mm3_init : tensor<8x10xf32>) -> tensor<8x10xf32>
  %mm3 = linalg.matmul ins(%a2, %w3 : tensor<8x64xf32>, tensor<64x10xf32>)
                       outs(%mm3_zero : tensor<8x10xf32>) -> tensor<8x10xf32>
  %z3_init = tensor.empty() : tensor<8x10xf32>
  %z3 = linalg.generic {indexing_maps = [#id2, #row, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%mm3, %b3 : tensor<8x10xf32>, tensor<10xf32>) outs(%z3_init : tensor<8x10xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x10xf32>

  // Softmax cross-entropy: m = max_c z3, e = exp(z3 - m), s = sum_c e,
  // log_softmax = z3 - m - log(s), loss = -(1/B) sum y * log_softmax.
  %max_init = tensor.empty() : tensor<8xf32>
  %max_low = linalg.fill ins(%lowest : f32) outs(%max_init : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.reduce ins(%z3 : tensor<8x10xf32>) outs(%max_low : tensor<8xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  %exp_init = tensor.empty() : tensor<8x10xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #col, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%z3, %max : tensor<8x10xf32>, tensor<8xf32>) outs(%exp_init : tensor<8x10xf32>) {
  ^bb0(%v: f32, %m: f32, %out: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<8x10xf32>
  %sum_init = tensor.empty() : tensor<8xf32>
  %sum_zero = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.reduce ins(%exp : tensor<8x10xf32>) outs(%sum_zero : tensor<8xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %logp_init = tensor.empty() : tensor<8x10xf32>
  %logp = linalg.generic {indexing_maps = [#id2, #col, #col, #id2],
                          iterator_types = ["parallel", "parallel"]}
      ins(%z3, %max, %sum : tensor<8x10xf32>, tensor<8xf32>, tensor<8xf32>)
      outs(%logp_init : tensor<8x10xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %v, %m : f32
    %l = math.log %s : f32
    %r = arith.subf %d, %l : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %nll_init = tensor.empty() : tensor<f32>
  %nll_zero = linalg.fill ins(%zero : f32) outs(%nll_init : tensor<f32>) -> tensor<f32>
  %nll = linalg.generic {indexing_maps = [#id2, #id2, #all],
                         iterator_types = ["reduction", "reduction"]}
      ins(%y, %logp : tensor<8x10xf32>, tensor<8x10xf32>) outs(%nll_zero : tensor<f32>) {
  ^bb0(%t: f32, %lp: f32, %acc: f32):
    %p = arith.mulf %t, %lp : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss_init = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id0, #id0], iterator_types = []}
      ins(%nll : tensor<f32>) outs(%loss_init : tensor<f32>) {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    %r = arith.mulf %n, %inv_batch : f32
    linalg.yield %r : f32
  } -> tensor<f32>

  //===--------------------------------------------------------------------===//
  // Backward.
  //===--------------------------------------------------------------------===//

  // dz3 = (e / s - y) / B.
  %dz3_init = tensor.empty() : tensor<8x10xf32>
  %dz3 = linalg.generic {indexing_maps = [#id2, #col, #id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum, %y : tensor<8x10xf32>, tensor<8xf32>, tensor<8x10xf32>)
      outs(%dz3_init : tensor<8x10xf32>) {
  ^bb0(%e: f32, %s: f32, %t: f32, %out: f32):
    %p = arith.divf %e, %s : f32
    %d = arith.subf %p, %t : f32
    %r = arith.mulf %d, %inv_batch : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>

  // Layer 3: dW3 = a2^T dz3, db3 = sum_b dz3, da2 = dz3 W3^T.
  %a2t_init = tensor.empty() : tensor<64x8xf32>
  %a2t = linalg.transpose ins(%a2 : tensor<8x64xf32>) outs(%a2t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw3_init = tensor.empty() : tensor<64x10xf32>
  %dw3_zero = linalg.fill ins(%zero : f32) outs(%dw3_init : tensor<64x10xf32>) -> tensor<64x10xf32>
  %dw3 = linalg.matmul ins(%a2t, %dz3 : tensor<64x8xf32>, tensor<8x10xf32>)
                       outs(%dw3_zero : tensor<64x10xf32>) -> tensor<64x10xf32>
  %db3_init = tensor.empty() : tensor<10xf32>
  %db3_zero = linalg.fill ins(%zero : f32) outs(%db3_init : tensor<10xf32>) -> tensor<10xf32>
  %db3 = linalg.reduce ins(%dz3 : tensor<8x10xf32>) outs(%db3_zero : tensor<10xf32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %w3t_init = tensor.empty() : tensor<10x64xf32>
  %w3t = linalg.transpose ins(%w3 : tensor<64x10xf32>) outs(%w3t_init : tensor<10x64xf32>) permutation = [1, 0]
  %da2_init = tensor.empty() : tensor<8x64xf32>
  %da2_zero = linalg.fill ins(%zero : f32) outs(%da2_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %da2 = linalg.matmul ins(%dz3, %w3t : tensor<8x10xf32>, tensor<10x64xf32>)
                       outs(%da2_zero : tensor<8x64xf32>) -> tensor<8x64xf32>

  // ReLU 2: dz2 = da2 * [z2 > 0].
  %dz2_init = tensor.empty() : tensor<8x64xf32>
  %dz2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z2, %da2 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz2_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>

  // Layer 2: dW2 = a1^T dz2, db2 = sum_b dz2, da1 = dz2 W2^T.
  %a1t_init = tensor.empty() : tensor<64x8xf32>
  %a1t = linalg.transpose ins(%a1 : tensor<8x64xf32>) outs(%a1t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw2_init = tensor.empty() : tensor<64x64xf32>
  %dw2_zero = linalg.fill ins(%zero : f32) outs(%dw2_init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %dw2 = linalg.matmul ins(%a1t, %dz2 : tensor<64x8xf32>, tensor<8x64xf32>)
                       outs(%dw2_zero : tensor<64x64xf32>) -> tensor<64x64xf32>
  %db2_init = tensor.empty() : tensor<64xf32>
  %db2_zero = linalg.fill ins(%zero : f32) outs(%db2_init : tensor<64xf32>) -> tensor<64xf32>
  %db2 = linalg.reduce ins(%dz2 : tensor<8x64xf32>) outs(%db2_zero : tensor<64xf32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %w2t_init = tensor.empty() : tensor<64x64xf32>
  %w2t = linalg.transpose ins(%w2 : tensor<64x64xf32>) outs(%w2t_init : tensor<64x64xf32>) permutation = [1, 0]
  %da1_init = tensor.empty() : tensor<8x64xf32>
  %da1_zero = linalg.fill ins(%zero : f32) outs(%da1_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %da1 = linalg.matmul ins(%dz2, %w2t : tensor<8x64xf32>, tensor<64x64xf32>)
                       outs(%da1_zero : tensor<8x64xf32>) -> tensor<8x64xf32>

  // ReLU 1: dz1 = da1 * [z1 > 0].
  %dz1_init = tensor.empty() : tensor<8x64xf32>
  %dz1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z1, %da1 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz1_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>

  // Layer 1: dW1 = x^T dz1, db1 = sum_b dz1.
  %xt_init = tensor.empty() : tensor<32x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x32xf32>) outs(%xt_init : tensor<32x8xf32>) permutation = [1, 0]
  %dw1_init = tensor.empty() : tensor<32x64xf32>
  %dw1_zero = linalg.fill ins(%zero : f32) outs(%dw1_init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw1 = linalg.matmul ins(%xt, %dz1 : tensor<32x8xf32>, tensor<8x64xf32>)
                       outs(%dw1_zero : tensor<32x64xf32>) -> tensor<32x64xf32>
  %db1_init = tensor.empty() : tensor<64xf32>
  %db1_zero = linalg.fill ins(%zero : f32) outs(%db1_init : tensor<64xf32>) -> tensor<64xf32>
  %db1 = linalg.reduce ins(%dz1 : tensor<8x64xf32>) outs(%db1_zero : tensor<64xf32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }

  //===--------------------------------------------------------------------===//
  // SGD update: p' = p - lr * dp.
  //===--------------------------------------------------------------------===//

  %w1n_init = tensor.empty() : tensor<32x64xf32>
  %w1n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %dw1 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%w1n_init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x64xf32>
  %b1n_init = tensor.empty() : tensor<64xf32>
  %b1n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%b1, %db1 : tensor<64xf32>, tensor<64xf32>) outs(%b1n_init : tensor<64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %w2n_init = tensor.empty() : tensor<64x64xf32>
  %w2n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %dw2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%w2n_init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %b2n_init = tensor.empty() : tensor<64xf32>
  %b2n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%b2, %db2 : tensor<64xf32>, tensor<64xf32>) outs(%b2n_init : tensor<64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %w3n_init = tensor.empty() : tensor<64x10xf32>
  %w3n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w3, %dw3 : tensor<64x10xf32>, tensor<64x10xf32>) outs(%w3n_init : tensor<64x10xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x10xf32>
  %b3n_init = tensor.empty() : tensor<10xf32>
  %b3n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%b3, %db3 : tensor<10xf32>, tensor<10xf32>) outs(%b3n_init : tensor<10xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<10xf32>

  return %loss, %w1n, %b1n, %w2n, %b2n, %w3n, %b3n
      : tensor<f32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x64xf32>,
        tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>
}
