// examples/cnn.mlir - One SGD training step of a small CNN (hand-written).
//
// Model (batch N = 4, NHWC images 10x10x3, HWCF filters, stride 1, no padding):
//   z1 = conv(x,  K1) + c1    (4x8x8x4),  a1 = relu(z1)
//   z2 = conv(a1, K2) + c2    (4x6x6x8),  a2 = relu(z2)
//   p  = maxpool_2x2/2(a2)    (4x3x3x8),  f = reshape(p) (4x72)
//   z3 = f W3 + b3            (4x10, logits)
//   loss = -(1/N) sum_{n,c} y[n,c] * log_softmax(z3)[n,c]
// Backward (written by hand):
//   dz3 = (softmax(z3) - y) / N,  dW3 = f^T dz3,  db3 = sum_n dz3,  df = dz3 W3^T
//   dp  = reshape(df)
//   da2[n,h,w,f] = dp[n,h/2,w/2,f] if a2[n,h,w,f] == p[n,h/2,w/2,f] else 0
//   dz2 = da2 * [z2 > 0]
//   dK2[i,j,c,f] = sum_{n,h,w} a1[n,h+i,w+j,c] dz2[n,h,w,f],  dc2 = sum_{n,h,w} dz2
//   da1[n,h,w,c] = sum_{i,j,f} pad2(dz2)[n,h-i+2,w-j+2,f] K2[i,j,c,f]
//                  (full correlation: dz2 zero-padded by kernel size - 1)
//   dz1 = da1 * [z1 > 0]
//   dK1[i,j,c,f] = sum_{n,h,w} x[n,h+i,w+j,c] dz1[n,h,w,f],   dc1 = sum_{n,h,w} dz1
// SGD update with learning rate 0.1: p' = p - 0.1 * dp.
//
// @cnn_step(K1, c1, K2, c2, W3, b3, x, y) -> (loss, K1', c1', K2', c2', W3', b3')
// Driver: examples/cnn.run.mlir (see examples/README.md).

#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>
#pooled = affine_map<(n, h, w, c) -> (n, h floordiv 2, w floordiv 2, c)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
#all = affine_map<(d0, d1) -> ()>
#id0 = affine_map<() -> ()>
#id1 = affine_map<(d0) -> (d0)>
// Weight gradient: dims (i, j, c, f, n, h, w).
#wg_in = affine_map<(i, j, c, f, n, h, w) -> (n, h + i, w + j, c)>
#wg_dout = affine_map<(i, j, c, f, n, h, w) -> (n, h, w, f)>
#wg_out = affine_map<(i, j, c, f, n, h, w) -> (i, j, c, f)>
// Input gradient: dims (n, h, w, c, i, j, f).
#ig_dout = affine_map<(n, h, w, c, i, j, f) -> (n, h - i + 2, w - j + 2, f)>
#ig_k = affine_map<(n, h, w, c, i, j, f) -> (i, j, c, f)>
#ig_out = affine_map<(n, h, w, c, i, j, f) -> (n, h, w, c)>

func.func @cnn_step(%k1: tensor<3x3x3x4xf32>, %c1: tensor<4xf32>,
                    %k2: tensor<3x3x4x8xf32>, %c2: tensor<8xf32>,
                    %w3: tensor<72x10xf32>, %b3: tensor<10xf32>,
                    %x: tensor<4x10x10x3xf32>, %y: tensor<4x10xf32>)
    -> (tensor<f32>, tensor<3x3x3x4xf32>, tensor<4xf32>, tensor<3x3x4x8xf32>,
        tensor<8xf32>, tensor<72x10xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %lr = arith.constant 0.1 : f32
  %inv_batch = arith.constant 0.25 : f32

  //===--------------------------------------------------------------------===//
  // Forward.
  //===--------------------------------------------------------------------===//

  // Convolution 1: z1 = conv(x, K1) + c1, a1 = relu(z1).
  %conv1_init = tensor.empty() : tensor<4x8x8x4xf32>
  %conv1_zero = linalg.fill ins(%zero : f32) outs(%conv1_init : tensor<4x8x8x4xf32>) -> tensor<4x8x8x4xf32>
  %conv1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %k1 : tensor<4x10x10x3xf32>, tensor<3x3x3x4xf32>)
      outs(%conv1_zero : tensor<4x8x8x4xf32>) -> tensor<4x8x8x4xf32>
  %z1_init = tensor.empty() : tensor<4x8x8x4xf32>
  %z1 = linalg.generic {indexing_maps = [#id4, #chan, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv1, %c1 : tensor<4x8x8x4xf32>, tensor<4xf32>) outs(%z1_init : tensor<4x8x8x4xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8x4xf32>
  %a1_init = tensor.empty() : tensor<4x8x8x4xf32>
  %a1 = linalg.generic {indexing_maps = [#id4, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z1 : tensor<4x8x8x4xf32>) outs(%a1_init : tensor<4x8x8x4xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8x4xf32>

  // Convolution 2: z2 = conv(a1, K2) + c2, a2 = relu(z2).
  %conv2_init = tensor.empty() : tensor<4x6x6x8xf32>
  %conv2_zero = linalg.fill ins(%zero : f32) outs(%conv2_init : tensor<4x6x6x8xf32>) -> tensor<4x6x6x8xf32>
  %conv2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a1, %k2 : tensor<4x8x8x4xf32>, tensor<3x3x4x8xf32>)
      outs(%conv2_zero : tensor<4x6x6x8xf32>) -> tensor<4x6x6x8xf32>
  %z2_init = tensor.empty() : tensor<4x6x6x8xf32>
  %z2 = linalg.generic {indexing_maps = [#id4, #chan, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv2, %c2 : tensor<4x6x6x8xf32>, tensor<8xf32>) outs(%z2_init : tensor<4x6x6x8xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x6x6x8xf32>
  %a2_init = tensor.empty() : tensor<4x6x6x8xf32>
  %a2 = linalg.generic {indexing_maps = [#id4, #id4],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z2 : tensor<4x6x6x8xf32>) outs(%a2_init : tensor<4x6x6x8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x6x6x8xf32>

  // 2x2 max pooling with stride 2, then flatten to 4x72.
  %window = tensor.empty() : tensor<2x2xf32>
  %pool_init = tensor.empty() : tensor<4x3x3x8xf32>
  %pool_low = linalg.fill ins(%lowest : f32) outs(%pool_init : tensor<4x3x3x8xf32>) -> tensor<4x3x3x8xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a2, %window : tensor<4x6x6x8xf32>, tensor<2x2xf32>)
      outs(%pool_low : tensor<4x3x3x8xf32>) -> tensor<4x3x3x8xf32>
  %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]] : tensor<4x3x3x8xf32> into tensor<4x72xf32>

  // Linear layer: z3 = f W3 + b3.
  %mm3_init = tensor.empty() : tensor<4x10xf32>
  %mm3_zero = linalg.fill ins(%zero : f32) outs(%mm3_init : tensor<4x10xf32>) -> tensor<4x10xf32>
  %mm3 = linalg.matmul ins(%flat, %w3 : tensor<4x72xf32>, tensor<72x10xf32>)
                       outs(%mm3_zero : tensor<4x10xf32>) -> tensor<4x10xf32>
  %z3_init = tensor.empty() : tensor<4x10xf32>
  %z3 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm3, %b3 : tensor<4x10xf32>, tensor<10xf32>) outs(%z3_init : tensor<4x10xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x10xf32>

  // Softmax cross-entropy (as in examples/mlp.mlir).
  %max_init = tensor.empty() : tensor<4xf32>
  %max_low = linalg.fill ins(%lowest : f32) outs(%max_init : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.reduce ins(%z3 : tensor<4x10xf32>) outs(%max_low : tensor<4xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  %exp_init = tensor.empty() : tensor<4x10xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z3, %max : tensor<4x10xf32>, tensor<4xf32>) outs(%exp_init : tensor<4x10xf32>) {
  ^bb0(%v: f32, %m: f32, %out: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x10xf32>
  %sum_init = tensor.empty() : tensor<4xf32>
  %sum_zero = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce ins(%exp : tensor<4x10xf32>) outs(%sum_zero : tensor<4xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %logp_init = tensor.empty() : tensor<4x10xf32>
  %logp = linalg.generic {indexing_maps = [#id2, #col, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%z3, %max, %sum : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%logp_init : tensor<4x10xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %v, %m : f32
    %l = math.log %s : f32
    %r = arith.subf %d, %l : f32
    linalg.yield %r : f32
  } -> tensor<4x10xf32>
  %nll_init = tensor.empty() : tensor<f32>
  %nll_zero = linalg.fill ins(%zero : f32) outs(%nll_init : tensor<f32>) -> tensor<f32>
  %nll = linalg.generic {indexing_maps = [#id2, #id2, #all], iterator_types = ["reduction", "reduction"]}
      ins(%y, %logp : tensor<4x10xf32>, tensor<4x10xf32>) outs(%nll_zero : tensor<f32>) {
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

  // dz3 = (e / s - y) / N.
  %dz3_init = tensor.empty() : tensor<4x10xf32>
  %dz3 = linalg.generic {indexing_maps = [#id2, #col, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum, %y : tensor<4x10xf32>, tensor<4xf32>, tensor<4x10xf32>)
      outs(%dz3_init : tensor<4x10xf32>) {
  ^bb0(%e: f32, %s: f32, %t: f32, %out: f32):
    %p = arith.divf %e, %s : f32
    %d = arith.subf %p, %t : f32
    %r = arith.mulf %d, %inv_batch : f32
    linalg.yield %r : f32
  } -> tensor<4x10xf32>

  // Linear layer: dW3 = f^T dz3, db3 = sum_n dz3, df = dz3 W3^T.
  %flatt_init = tensor.empty() : tensor<72x4xf32>
  %flatt = linalg.transpose ins(%flat : tensor<4x72xf32>) outs(%flatt_init : tensor<72x4xf32>) permutation = [1, 0]
  %dw3_init = tensor.empty() : tensor<72x10xf32>
  %dw3_zero = linalg.fill ins(%zero : f32) outs(%dw3_init : tensor<72x10xf32>) -> tensor<72x10xf32>
  %dw3 = linalg.matmul ins(%flatt, %dz3 : tensor<72x4xf32>, tensor<4x10xf32>)
                       outs(%dw3_zero : tensor<72x10xf32>) -> tensor<72x10xf32>
  %db3_init = tensor.empty() : tensor<10xf32>
  %db3_zero = linalg.fill ins(%zero : f32) outs(%db3_init : tensor<10xf32>) -> tensor<10xf32>
  %db3 = linalg.reduce ins(%dz3 : tensor<4x10xf32>) outs(%db3_zero : tensor<10xf32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %w3t_init = tensor.empty() : tensor<10x72xf32>
  %w3t = linalg.transpose ins(%w3 : tensor<72x10xf32>) outs(%w3t_init : tensor<10x72xf32>) permutation = [1, 0]
  %dflat_init = tensor.empty() : tensor<4x72xf32>
  %dflat_zero = linalg.fill ins(%zero : f32) outs(%dflat_init : tensor<4x72xf32>) -> tensor<4x72xf32>
  %dflat = linalg.matmul ins(%dz3, %w3t : tensor<4x10xf32>, tensor<10x72xf32>)
                         outs(%dflat_zero : tensor<4x72xf32>) -> tensor<4x72xf32>
  %dpool = tensor.expand_shape %dflat [[0], [1, 2, 3]] output_shape [4, 3, 3, 8]
      : tensor<4x72xf32> into tensor<4x3x3x8xf32>

  // Max pooling: route dp to the window's maximum (ties are measure-zero
  // except for zeros from the ReLU, which the ReLU mask below discards).
  %da2_init = tensor.empty() : tensor<4x6x6x8xf32>
  %da2 = linalg.generic {indexing_maps = [#id4, #pooled, #pooled, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a2, %pool, %dpool : tensor<4x6x6x8xf32>, tensor<4x3x3x8xf32>, tensor<4x3x3x8xf32>)
      outs(%da2_init : tensor<4x6x6x8xf32>) {
  ^bb0(%a: f32, %m: f32, %g: f32, %out: f32):
    %is_max = arith.cmpf oeq, %a, %m : f32
    %r = arith.select %is_max, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x6x6x8xf32>

  // ReLU 2: dz2 = da2 * [z2 > 0].
  %dz2_init = tensor.empty() : tensor<4x6x6x8xf32>
  %dz2 = linalg.generic {indexing_maps = [#id4, #id4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z2, %da2 : tensor<4x6x6x8xf32>, tensor<4x6x6x8xf32>) outs(%dz2_init : tensor<4x6x6x8xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x6x6x8xf32>

  // Convolution 2, weights: dK2[i,j,c,f] = sum_{n,h,w} a1[n,h+i,w+j,c] dz2[n,h,w,f].
  %dk2_init = tensor.empty() : tensor<3x3x4x8xf32>
  %dk2_zero = linalg.fill ins(%zero : f32) outs(%dk2_init : tensor<3x3x4x8xf32>) -> tensor<3x3x4x8xf32>
  %dk2 = linalg.generic {indexing_maps = [#wg_in, #wg_dout, #wg_out],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                           "reduction", "reduction", "reduction"]}
      ins(%a1, %dz2 : tensor<4x8x8x4xf32>, tensor<4x6x6x8xf32>) outs(%dk2_zero : tensor<3x3x4x8xf32>) {
  ^bb0(%a: f32, %g: f32, %acc: f32):
    %p = arith.mulf %a, %g : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<3x3x4x8xf32>
  %dc2_init = tensor.empty() : tensor<8xf32>
  %dc2_zero = linalg.fill ins(%zero : f32) outs(%dc2_init : tensor<8xf32>) -> tensor<8xf32>
  %dc2 = linalg.reduce ins(%dz2 : tensor<4x6x6x8xf32>) outs(%dc2_zero : tensor<8xf32>) dimensions = [0, 1, 2]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }

  // Convolution 2, input: full correlation of the zero-padded dz2 with K2.
  %dz2_pad = tensor.pad %dz2 low[0, 2, 2, 0] high[0, 2, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<4x6x6x8xf32> to tensor<4x10x10x8xf32>
  %da1_init = tensor.empty() : tensor<4x8x8x4xf32>
  %da1_zero = linalg.fill ins(%zero : f32) outs(%da1_init : tensor<4x8x8x4xf32>) -> tensor<4x8x8x4xf32>
  %da1 = linalg.generic {indexing_maps = [#ig_dout, #ig_k, #ig_out],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                           "reduction", "reduction", "reduction"]}
      ins(%dz2_pad, %k2 : tensor<4x10x10x8xf32>, tensor<3x3x4x8xf32>) outs(%da1_zero : tensor<4x8x8x4xf32>) {
  ^bb0(%g: f32, %k: f32, %acc: f32):
    %p = arith.mulf %g, %k : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8x4xf32>

  // ReLU 1: dz1 = da1 * [z1 > 0].
  %dz1_init = tensor.empty() : tensor<4x8x8x4xf32>
  %dz1 = linalg.generic {indexing_maps = [#id4, #id4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z1, %da1 : tensor<4x8x8x4xf32>, tensor<4x8x8x4xf32>) outs(%dz1_init : tensor<4x8x8x4xf32>) {
  ^bb0(%z: f32, %g: f32, %out: f32):
    %pos = arith.cmpf ogt, %z, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8x4xf32>

  // Convolution 1, weights: dK1[i,j,c,f] = sum_{n,h,w} x[n,h+i,w+j,c] dz1[n,h,w,f].
  %dk1_init = tensor.empty() : tensor<3x3x3x4xf32>
  %dk1_zero = linalg.fill ins(%zero : f32) outs(%dk1_init : tensor<3x3x3x4xf32>) -> tensor<3x3x3x4xf32>
  %dk1 = linalg.generic {indexing_maps = [#wg_in, #wg_dout, #wg_out],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                           "reduction", "reduction", "reduction"]}
      ins(%x, %dz1 : tensor<4x10x10x3xf32>, tensor<4x8x8x4xf32>) outs(%dk1_zero : tensor<3x3x3x4xf32>) {
  ^bb0(%a: f32, %g: f32, %acc: f32):
    %p = arith.mulf %a, %g : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<3x3x3x4xf32>
  %dc1_init = tensor.empty() : tensor<4xf32>
  %dc1_zero = linalg.fill ins(%zero : f32) outs(%dc1_init : tensor<4xf32>) -> tensor<4xf32>
  %dc1 = linalg.reduce ins(%dz1 : tensor<4x8x8x4xf32>) outs(%dc1_zero : tensor<4xf32>) dimensions = [0, 1, 2]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }

  //===--------------------------------------------------------------------===//
  // SGD update: p' = p - lr * dp.
  //===--------------------------------------------------------------------===//

  %k1n_init = tensor.empty() : tensor<3x3x3x4xf32>
  %k1n = linalg.generic {indexing_maps = [#id4, #id4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k1, %dk1 : tensor<3x3x3x4xf32>, tensor<3x3x3x4xf32>) outs(%k1n_init : tensor<3x3x3x4xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<3x3x3x4xf32>
  %c1n_init = tensor.empty() : tensor<4xf32>
  %c1n = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%c1, %dc1 : tensor<4xf32>, tensor<4xf32>) outs(%c1n_init : tensor<4xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %k2n_init = tensor.empty() : tensor<3x3x4x8xf32>
  %k2n = linalg.generic {indexing_maps = [#id4, #id4, #id4],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k2, %dk2 : tensor<3x3x4x8xf32>, tensor<3x3x4x8xf32>) outs(%k2n_init : tensor<3x3x4x8xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<3x3x4x8xf32>
  %c2n_init = tensor.empty() : tensor<8xf32>
  %c2n = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%c2, %dc2 : tensor<8xf32>, tensor<8xf32>) outs(%c2n_init : tensor<8xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %w3n_init = tensor.empty() : tensor<72x10xf32>
  %w3n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w3, %dw3 : tensor<72x10xf32>, tensor<72x10xf32>) outs(%w3n_init : tensor<72x10xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<72x10xf32>
  %b3n_init = tensor.empty() : tensor<10xf32>
  %b3n = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%b3, %db3 : tensor<10xf32>, tensor<10xf32>) outs(%b3n_init : tensor<10xf32>) {
  ^bb0(%p: f32, %g: f32, %out: f32):
    %s = arith.mulf %lr, %g : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<10xf32>

  return %loss, %k1n, %c1n, %k2n, %c2n, %w3n, %b3n
      : tensor<f32>, tensor<3x3x3x4xf32>, tensor<4xf32>, tensor<3x3x4x8xf32>,
        tensor<8xf32>, tensor<72x10xf32>, tensor<10xf32>
}
