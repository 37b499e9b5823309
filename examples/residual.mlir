// examples/residual.mlir - One SGD training step of a chain of 5 residual
// blocks (hand-written).
//
// Model (batch B = 8, width 32, hidden width 64, no biases):
//   h0 = x
//   z_i = h_i W1_i,  u_i = relu(z_i),  h_{i+1} = h_i + u_i W2_i      (i = 0..4)
//   loss = 0.5/B * sum (h5 - target)^2
// Backward (written by hand), g_i = d loss / d h_i:
//   g5 = (h5 - target) / B
//   dW2_i = u_i^T g_{i+1},  du_i = g_{i+1} W2_i^T,  dz_i = du_i * [z_i > 0]
//   dW1_i = h_i^T dz_i,     g_i = g_{i+1} + dz_i W1_i^T      (not needed for i = 0)
// SGD update with learning rate 0.01: p' = p - 0.01 * dp (0.1 overshoots here:
// the loss after one step would rise from 2.03 to 31.8).
//
// @residual_step(W1_0, W2_0, ..., W1_4, W2_4, x, target)
//     -> (loss, W1_0', W2_0', ..., W1_4', W2_4')
// Every block input h_i and every z_i / u_i is used again by the backward:
// the long chain is the classic setting for sqrt(N) checkpointing.
// Driver: examples/residual.run.mlir (see examples/README.md).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
#id0 = affine_map<() -> ()>

func.func @residual_step(%w1_0: tensor<32x64xf32>, %w2_0: tensor<64x32xf32>,
                         %w1_1: tensor<32x64xf32>, %w2_1: tensor<64x32xf32>,
                         %w1_2: tensor<32x64xf32>, %w2_2: tensor<64x32xf32>,
                         %w1_3: tensor<32x64xf32>, %w2_3: tensor<64x32xf32>,
                         %w1_4: tensor<32x64xf32>, %w2_4: tensor<64x32xf32>,
                         %x: tensor<8x32xf32>, %target: tensor<8x32xf32>)
    -> (tensor<f32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %lr = arith.constant 0.01 : f32
  %half_inv_batch = arith.constant 0.0625 : f32
  %inv_batch = arith.constant 0.125 : f32

  //===--------------------------------------------------------------------===//
  // Forward.
  //===--------------------------------------------------------------------===//

  // Block 0: z0 = h0 W1_0, u0 = relu(z0), h1 = h0 + u0 W2_0.
  %z0_init = tensor.empty() : tensor<8x64xf32>
  %z0_zero = linalg.fill ins(%zero : f32) outs(%z0_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z0 = linalg.matmul ins(%x, %w1_0 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z0_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %u0_init = tensor.empty() : tensor<8x64xf32>
  %u0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z0 : tensor<8x64xf32>) outs(%u0_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %v0_init = tensor.empty() : tensor<8x32xf32>
  %v0_zero = linalg.fill ins(%zero : f32) outs(%v0_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %v0 = linalg.matmul ins(%u0, %w2_0 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%v0_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h1_init = tensor.empty() : tensor<8x32xf32>
  %h1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %v0 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%h1_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 1: z1 = h1 W1_1, u1 = relu(z1), h2 = h1 + u1 W2_1.
  %z1_init = tensor.empty() : tensor<8x64xf32>
  %z1_zero = linalg.fill ins(%zero : f32) outs(%z1_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z1 = linalg.matmul ins(%h1, %w1_1 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z1_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %u1_init = tensor.empty() : tensor<8x64xf32>
  %u1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z1 : tensor<8x64xf32>) outs(%u1_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %v1_init = tensor.empty() : tensor<8x32xf32>
  %v1_zero = linalg.fill ins(%zero : f32) outs(%v1_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %v1 = linalg.matmul ins(%u1, %w2_1 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%v1_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h2_init = tensor.empty() : tensor<8x32xf32>
  %h2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %v1 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%h2_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 2: z2 = h2 W1_2, u2 = relu(z2), h3 = h2 + u2 W2_2.
  %z2_init = tensor.empty() : tensor<8x64xf32>
  %z2_zero = linalg.fill ins(%zero : f32) outs(%z2_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z2 = linalg.matmul ins(%h2, %w1_2 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z2_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %u2_init = tensor.empty() : tensor<8x64xf32>
  %u2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z2 : tensor<8x64xf32>) outs(%u2_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %v2_init = tensor.empty() : tensor<8x32xf32>
  %v2_zero = linalg.fill ins(%zero : f32) outs(%v2_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %v2 = linalg.matmul ins(%u2, %w2_2 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%v2_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h3_init = tensor.empty() : tensor<8x32xf32>
  %h3 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h2, %v2 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%h3_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 3: z3 = h3 W1_3, u3 = relu(z3), h4 = h3 + u3 W2_3.
  %z3_init = tensor.empty() : tensor<8x64xf32>
  %z3_zero = linalg.fill ins(%zero : f32) outs(%z3_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z3 = linalg.matmul ins(%h3, %w1_3 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z3_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %u3_init = tensor.empty() : tensor<8x64xf32>
  %u3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z3 : tensor<8x64xf32>) outs(%u3_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %v3_init = tensor.empty() : tensor<8x32xf32>
  %v3_zero = linalg.fill ins(%zero : f32) outs(%v3_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %v3 = linalg.matmul ins(%u3, %w2_3 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%v3_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h4_init = tensor.empty() : tensor<8x32xf32>
  %h4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h3, %v3 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%h4_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 4: z4 = h4 W1_4, u4 = relu(z4), h5 = h4 + u4 W2_4.
  %z4_init = tensor.empty() : tensor<8x64xf32>
  %z4_zero = linalg.fill ins(%zero : f32) outs(%z4_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %z4 = linalg.matmul ins(%h4, %w1_4 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%z4_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %u4_init = tensor.empty() : tensor<8x64xf32>
  %u4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z4 : tensor<8x64xf32>) outs(%u4_init : tensor<8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %v4_init = tensor.empty() : tensor<8x32xf32>
  %v4_zero = linalg.fill ins(%zero : f32) outs(%v4_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %v4 = linalg.matmul ins(%u4, %w2_4 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%v4_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h5_init = tensor.empty() : tensor<8x32xf32>
  %h5 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h4, %v4 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%h5_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // MSE loss: 0.5/B * sum (h5 - target)^2.
  %diff_init = tensor.empty() : tensor<8x32xf32>
  %diff = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h5, %target : tensor<8x32xf32>, tensor<8x32xf32>) outs(%diff_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %t: f32, %out: f32):
    %d = arith.subf %a, %t : f32
    linalg.yield %d : f32
  } -> tensor<8x32xf32>
  %sq_init = tensor.empty() : tensor<f32>
  %sq_zero = linalg.fill ins(%zero : f32) outs(%sq_init : tensor<f32>) -> tensor<f32>
  %sq = linalg.generic {indexing_maps = [#id2, #all], iterator_types = ["reduction", "reduction"]}
      ins(%diff : tensor<8x32xf32>) outs(%sq_zero : tensor<f32>) {
  ^bb0(%d: f32, %acc: f32):
    %p = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss_init = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id0, #id0], iterator_types = []}
      ins(%sq : tensor<f32>) outs(%loss_init : tensor<f32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.mulf %v, %half_inv_batch : f32
    linalg.yield %r : f32
  } -> tensor<f32>

  //===--------------------------------------------------------------------===//
  // Backward.
  //===--------------------------------------------------------------------===//

  // g5 = (h5 - target) / B.
  %g5_init = tensor.empty() : tensor<8x32xf32>
  %g5 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%diff : tensor<8x32xf32>) outs(%g5_init : tensor<8x32xf32>) {
  ^bb0(%d: f32, %out: f32):
    %r = arith.mulf %d, %inv_batch : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>

  // Block 4: dW2_4 = u4^T g5, du4 = g5 W2_4^T, dz4 = du4 * [z4 > 0], dW1_4 = h4^T dz4.
  %u4t_init = tensor.empty() : tensor<64x8xf32>
  %u4t = linalg.transpose ins(%u4 : tensor<8x64xf32>) outs(%u4t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw2_4_init = tensor.empty() : tensor<64x32xf32>
  %dw2_4_zero = linalg.fill ins(%zero : f32) outs(%dw2_4_init : tensor<64x32xf32>) -> tensor<64x32xf32>
  %dw2_4 = linalg.matmul ins(%u4t, %g5 : tensor<64x8xf32>, tensor<8x32xf32>) outs(%dw2_4_zero : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w2_4t_init = tensor.empty() : tensor<32x64xf32>
  %w2_4t = linalg.transpose ins(%w2_4 : tensor<64x32xf32>) outs(%w2_4t_init : tensor<32x64xf32>) permutation = [1, 0]
  %du4_init = tensor.empty() : tensor<8x64xf32>
  %du4_zero = linalg.fill ins(%zero : f32) outs(%du4_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %du4 = linalg.matmul ins(%g5, %w2_4t : tensor<8x32xf32>, tensor<32x64xf32>) outs(%du4_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dz4_init = tensor.empty() : tensor<8x64xf32>
  %dz4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z4, %du4 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz4_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %h4t_init = tensor.empty() : tensor<32x8xf32>
  %h4t = linalg.transpose ins(%h4 : tensor<8x32xf32>) outs(%h4t_init : tensor<32x8xf32>) permutation = [1, 0]
  %dw1_4_init = tensor.empty() : tensor<32x64xf32>
  %dw1_4_zero = linalg.fill ins(%zero : f32) outs(%dw1_4_init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw1_4 = linalg.matmul ins(%h4t, %dz4 : tensor<32x8xf32>, tensor<8x64xf32>) outs(%dw1_4_zero : tensor<32x64xf32>) -> tensor<32x64xf32>
  // g4 = g5 + dz4 W1_4^T (residual path + block path).
  %w1_4t_init = tensor.empty() : tensor<64x32xf32>
  %w1_4t = linalg.transpose ins(%w1_4 : tensor<32x64xf32>) outs(%w1_4t_init : tensor<64x32xf32>) permutation = [1, 0]
  %dh4_init = tensor.empty() : tensor<8x32xf32>
  %dh4_zero = linalg.fill ins(%zero : f32) outs(%dh4_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %dh4 = linalg.matmul ins(%dz4, %w1_4t : tensor<8x64xf32>, tensor<64x32xf32>) outs(%dh4_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %g4_init = tensor.empty() : tensor<8x32xf32>
  %g4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g5, %dh4 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%g4_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 3: dW2_3 = u3^T g4, du3 = g4 W2_3^T, dz3 = du3 * [z3 > 0], dW1_3 = h3^T dz3.
  %u3t_init = tensor.empty() : tensor<64x8xf32>
  %u3t = linalg.transpose ins(%u3 : tensor<8x64xf32>) outs(%u3t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw2_3_init = tensor.empty() : tensor<64x32xf32>
  %dw2_3_zero = linalg.fill ins(%zero : f32) outs(%dw2_3_init : tensor<64x32xf32>) -> tensor<64x32xf32>
  %dw2_3 = linalg.matmul ins(%u3t, %g4 : tensor<64x8xf32>, tensor<8x32xf32>) outs(%dw2_3_zero : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w2_3t_init = tensor.empty() : tensor<32x64xf32>
  %w2_3t = linalg.transpose ins(%w2_3 : tensor<64x32xf32>) outs(%w2_3t_init : tensor<32x64xf32>) permutation = [1, 0]
  %du3_init = tensor.empty() : tensor<8x64xf32>
  %du3_zero = linalg.fill ins(%zero : f32) outs(%du3_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %du3 = linalg.matmul ins(%g4, %w2_3t : tensor<8x32xf32>, tensor<32x64xf32>) outs(%du3_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dz3_init = tensor.empty() : tensor<8x64xf32>
  %dz3 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z3, %du3 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz3_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %h3t_init = tensor.empty() : tensor<32x8xf32>
  %h3t = linalg.transpose ins(%h3 : tensor<8x32xf32>) outs(%h3t_init : tensor<32x8xf32>) permutation = [1, 0]
  %dw1_3_init = tensor.empty() : tensor<32x64xf32>
  %dw1_3_zero = linalg.fill ins(%zero : f32) outs(%dw1_3_init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw1_3 = linalg.matmul ins(%h3t, %dz3 : tensor<32x8xf32>, tensor<8x64xf32>) outs(%dw1_3_zero : tensor<32x64xf32>) -> tensor<32x64xf32>
  // g3 = g4 + dz3 W1_3^T (residual path + block path).
  %w1_3t_init = tensor.empty() : tensor<64x32xf32>
  %w1_3t = linalg.transpose ins(%w1_3 : tensor<32x64xf32>) outs(%w1_3t_init : tensor<64x32xf32>) permutation = [1, 0]
  %dh3_init = tensor.empty() : tensor<8x32xf32>
  %dh3_zero = linalg.fill ins(%zero : f32) outs(%dh3_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %dh3 = linalg.matmul ins(%dz3, %w1_3t : tensor<8x64xf32>, tensor<64x32xf32>) outs(%dh3_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %g3_init = tensor.empty() : tensor<8x32xf32>
  %g3 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g4, %dh3 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%g3_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 2: dW2_2 = u2^T g3, du2 = g3 W2_2^T, dz2 = du2 * [z2 > 0], dW1_2 = h2^T dz2.
  %u2t_init = tensor.empty() : tensor<64x8xf32>
  %u2t = linalg.transpose ins(%u2 : tensor<8x64xf32>) outs(%u2t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw2_2_init = tensor.empty() : tensor<64x32xf32>
  %dw2_2_zero = linalg.fill ins(%zero : f32) outs(%dw2_2_init : tensor<64x32xf32>) -> tensor<64x32xf32>
  %dw2_2 = linalg.matmul ins(%u2t, %g3 : tensor<64x8xf32>, tensor<8x32xf32>) outs(%dw2_2_zero : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w2_2t_init = tensor.empty() : tensor<32x64xf32>
  %w2_2t = linalg.transpose ins(%w2_2 : tensor<64x32xf32>) outs(%w2_2t_init : tensor<32x64xf32>) permutation = [1, 0]
  %du2_init = tensor.empty() : tensor<8x64xf32>
  %du2_zero = linalg.fill ins(%zero : f32) outs(%du2_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %du2 = linalg.matmul ins(%g3, %w2_2t : tensor<8x32xf32>, tensor<32x64xf32>) outs(%du2_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dz2_init = tensor.empty() : tensor<8x64xf32>
  %dz2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z2, %du2 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz2_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %h2t_init = tensor.empty() : tensor<32x8xf32>
  %h2t = linalg.transpose ins(%h2 : tensor<8x32xf32>) outs(%h2t_init : tensor<32x8xf32>) permutation = [1, 0]
  %dw1_2_init = tensor.empty() : tensor<32x64xf32>
  %dw1_2_zero = linalg.fill ins(%zero : f32) outs(%dw1_2_init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw1_2 = linalg.matmul ins(%h2t, %dz2 : tensor<32x8xf32>, tensor<8x64xf32>) outs(%dw1_2_zero : tensor<32x64xf32>) -> tensor<32x64xf32>
  // g2 = g3 + dz2 W1_2^T (residual path + block path).
  %w1_2t_init = tensor.empty() : tensor<64x32xf32>
  %w1_2t = linalg.transpose ins(%w1_2 : tensor<32x64xf32>) outs(%w1_2t_init : tensor<64x32xf32>) permutation = [1, 0]
  %dh2_init = tensor.empty() : tensor<8x32xf32>
  %dh2_zero = linalg.fill ins(%zero : f32) outs(%dh2_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %dh2 = linalg.matmul ins(%dz2, %w1_2t : tensor<8x64xf32>, tensor<64x32xf32>) outs(%dh2_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %g2_init = tensor.empty() : tensor<8x32xf32>
  %g2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g3, %dh2 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%g2_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 1: dW2_1 = u1^T g2, du1 = g2 W2_1^T, dz1 = du1 * [z1 > 0], dW1_1 = h1^T dz1.
  %u1t_init = tensor.empty() : tensor<64x8xf32>
  %u1t = linalg.transpose ins(%u1 : tensor<8x64xf32>) outs(%u1t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw2_1_init = tensor.empty() : tensor<64x32xf32>
  %dw2_1_zero = linalg.fill ins(%zero : f32) outs(%dw2_1_init : tensor<64x32xf32>) -> tensor<64x32xf32>
  %dw2_1 = linalg.matmul ins(%u1t, %g2 : tensor<64x8xf32>, tensor<8x32xf32>) outs(%dw2_1_zero : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w2_1t_init = tensor.empty() : tensor<32x64xf32>
  %w2_1t = linalg.transpose ins(%w2_1 : tensor<64x32xf32>) outs(%w2_1t_init : tensor<32x64xf32>) permutation = [1, 0]
  %du1_init = tensor.empty() : tensor<8x64xf32>
  %du1_zero = linalg.fill ins(%zero : f32) outs(%du1_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %du1 = linalg.matmul ins(%g2, %w2_1t : tensor<8x32xf32>, tensor<32x64xf32>) outs(%du1_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dz1_init = tensor.empty() : tensor<8x64xf32>
  %dz1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z1, %du1 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz1_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %h1t_init = tensor.empty() : tensor<32x8xf32>
  %h1t = linalg.transpose ins(%h1 : tensor<8x32xf32>) outs(%h1t_init : tensor<32x8xf32>) permutation = [1, 0]
  %dw1_1_init = tensor.empty() : tensor<32x64xf32>
  %dw1_1_zero = linalg.fill ins(%zero : f32) outs(%dw1_1_init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw1_1 = linalg.matmul ins(%h1t, %dz1 : tensor<32x8xf32>, tensor<8x64xf32>) outs(%dw1_1_zero : tensor<32x64xf32>) -> tensor<32x64xf32>
  // g1 = g2 + dz1 W1_1^T (residual path + block path).
  %w1_1t_init = tensor.empty() : tensor<64x32xf32>
  %w1_1t = linalg.transpose ins(%w1_1 : tensor<32x64xf32>) outs(%w1_1t_init : tensor<64x32xf32>) permutation = [1, 0]
  %dh1_init = tensor.empty() : tensor<8x32xf32>
  %dh1_zero = linalg.fill ins(%zero : f32) outs(%dh1_init : tensor<8x32xf32>) -> tensor<8x32xf32>
  %dh1 = linalg.matmul ins(%dz1, %w1_1t : tensor<8x64xf32>, tensor<64x32xf32>) outs(%dh1_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %g1_init = tensor.empty() : tensor<8x32xf32>
  %g1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g2, %dh1 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%g1_init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>

  // Block 0: dW2_0 = u0^T g1, du0 = g1 W2_0^T, dz0 = du0 * [z0 > 0], dW1_0 = h0^T dz0.
  %u0t_init = tensor.empty() : tensor<64x8xf32>
  %u0t = linalg.transpose ins(%u0 : tensor<8x64xf32>) outs(%u0t_init : tensor<64x8xf32>) permutation = [1, 0]
  %dw2_0_init = tensor.empty() : tensor<64x32xf32>
  %dw2_0_zero = linalg.fill ins(%zero : f32) outs(%dw2_0_init : tensor<64x32xf32>) -> tensor<64x32xf32>
  %dw2_0 = linalg.matmul ins(%u0t, %g1 : tensor<64x8xf32>, tensor<8x32xf32>) outs(%dw2_0_zero : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w2_0t_init = tensor.empty() : tensor<32x64xf32>
  %w2_0t = linalg.transpose ins(%w2_0 : tensor<64x32xf32>) outs(%w2_0t_init : tensor<32x64xf32>) permutation = [1, 0]
  %du0_init = tensor.empty() : tensor<8x64xf32>
  %du0_zero = linalg.fill ins(%zero : f32) outs(%du0_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %du0 = linalg.matmul ins(%g1, %w2_0t : tensor<8x32xf32>, tensor<32x64xf32>) outs(%du0_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dz0_init = tensor.empty() : tensor<8x64xf32>
  %dz0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z0, %du0 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%dz0_init : tensor<8x64xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %h0t_init = tensor.empty() : tensor<32x8xf32>
  %h0t = linalg.transpose ins(%x : tensor<8x32xf32>) outs(%h0t_init : tensor<32x8xf32>) permutation = [1, 0]
  %dw1_0_init = tensor.empty() : tensor<32x64xf32>
  %dw1_0_zero = linalg.fill ins(%zero : f32) outs(%dw1_0_init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw1_0 = linalg.matmul ins(%h0t, %dz0 : tensor<32x8xf32>, tensor<8x64xf32>) outs(%dw1_0_zero : tensor<32x64xf32>) -> tensor<32x64xf32>

  //===--------------------------------------------------------------------===//
  // SGD update: p' = p - lr * dp.
  //===--------------------------------------------------------------------===//

  %w1_0n_init = tensor.empty() : tensor<32x64xf32>
  %w1_0n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1_0, %dw1_0 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%w1_0n_init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x64xf32>
  %w2_0n_init = tensor.empty() : tensor<64x32xf32>
  %w2_0n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2_0, %dw2_0 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%w2_0n_init : tensor<64x32xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %w1_1n_init = tensor.empty() : tensor<32x64xf32>
  %w1_1n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1_1, %dw1_1 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%w1_1n_init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x64xf32>
  %w2_1n_init = tensor.empty() : tensor<64x32xf32>
  %w2_1n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2_1, %dw2_1 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%w2_1n_init : tensor<64x32xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %w1_2n_init = tensor.empty() : tensor<32x64xf32>
  %w1_2n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1_2, %dw1_2 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%w1_2n_init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x64xf32>
  %w2_2n_init = tensor.empty() : tensor<64x32xf32>
  %w2_2n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2_2, %dw2_2 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%w2_2n_init : tensor<64x32xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %w1_3n_init = tensor.empty() : tensor<32x64xf32>
  %w1_3n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1_3, %dw1_3 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%w1_3n_init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x64xf32>
  %w2_3n_init = tensor.empty() : tensor<64x32xf32>
  %w2_3n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2_3, %dw2_3 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%w2_3n_init : tensor<64x32xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %w1_4n_init = tensor.empty() : tensor<32x64xf32>
  %w1_4n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w1_4, %dw1_4 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%w1_4n_init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x64xf32>
  %w2_4n_init = tensor.empty() : tensor<64x32xf32>
  %w2_4n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w2_4, %dw2_4 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%w2_4n_init : tensor<64x32xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>

  return %loss, %w1_0n, %w2_0n, %w1_1n, %w2_1n,
      %w1_2n, %w2_2n, %w1_3n, %w2_3n, %w1_4n, %w2_4n
      : tensor<f32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>,
        tensor<32x64xf32>, tensor<64x32xf32>
}
