// examples/torch-mlir-step.mlir - One SGD step of a 2-layer regression MLP,
// written the way torch-mlir's linalg-on-tensors backend emits a training
// step (hand-written in that style; docs/Rematerialization.md, section 6).
//
// Model (batch B = 16, widths 32 -> 64 -> 8, a scalar output bias b):
//   h = x W1,  a = relu(h),  y = a W2 + b
//   loss = mean((y - t)^2)                        (over the B * 8 = 128 outputs)
// Backward:
//   dy = (2/128) (y - t)
//   dW2 = a^T dy,  db = sum(dy),  da = dy W2^T,  dh = da * [h > 0],  dW1 = x^T dh
// SGD update with learning rate 0.01: p' = p - 0.01 * dp.
//
// @forward(W1, W2, b, x, t) -> (W1', W2', b', loss)
//
// What makes it torch-mlir-like, and what each needs from remat-opt:
// * `#map`s, `tensor.empty` + `linalg.fill` + `linalg.matmul`, and
//   `linalg.generic` for every elementwise op, transpose and reduction;
// * one `tensor.empty` reused as the destination (`outs`) of several ops
//   (%0 and %4 below), which bufferization would turn into one buffer;
// * the updates first and the loss last, with the 0-d bias update b' (result
//   #2) before the loss (result #3): both are 0-d f32 tensors, and phase
//   inference would take the first, b', as the loss (it warns): plan with
//   `--remat-pipeline="loss=3 ..."`;
// * parameters first, then the data: mark the data `{remat.data}` (as here)
//   or the pipeline takes the first argument (W1) for the data.
//
// test/Examples/torch-mlir-step.mlir plans it with loss=3 and runs both.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
#map2 = affine_map<(d0, d1) -> (d1, d0)>
#map3 = affine_map<() -> ()>
module {
  func.func @forward(%arg0: tensor<32x64xf32>, %arg1: tensor<64x8xf32>, %arg2: tensor<f32>, %arg3: tensor<16x32xf32> {remat.data}, %arg4: tensor<16x8xf32> {remat.data}) -> (tensor<32x64xf32>, tensor<64x8xf32>, tensor<f32>, tensor<f32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 7.812500e-03 : f32
    %cst_1 = arith.constant 1.562500e-02 : f32
    %cst_2 = arith.constant 0.00999999977 : f32
    // Forward: h = x W1, a = relu(h).
    %0 = tensor.empty() : tensor<16x64xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x64xf32>) -> tensor<16x64xf32>
    %2 = linalg.matmul ins(%arg3, %arg0 : tensor<16x32xf32>, tensor<32x64xf32>) outs(%1 : tensor<16x64xf32>) -> tensor<16x64xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<16x64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.maximumf %in, %cst : f32
      linalg.yield %40 : f32
    } -> tensor<16x64xf32>
    // y - t = a W2 + b - t.
    %4 = tensor.empty() : tensor<16x8xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<16x8xf32>) -> tensor<16x8xf32>
    %6 = linalg.matmul ins(%3, %arg1 : tensor<16x64xf32>, tensor<64x8xf32>) outs(%5 : tensor<16x8xf32>) -> tensor<16x8xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %arg2, %arg4 : tensor<16x8xf32>, tensor<f32>, tensor<16x8xf32>) outs(%4 : tensor<16x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
      %40 = arith.addf %in, %in_3 : f32
      %41 = arith.subf %40, %in_4 : f32
      linalg.yield %41 : f32
    } -> tensor<16x8xf32>
    // loss = sum((y - t)^2) / 128.
    %8 = tensor.empty() : tensor<f32>
    %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<f32>) -> tensor<f32>
    %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction"]} ins(%7 : tensor<16x8xf32>) outs(%9 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.mulf %in, %in : f32
      %41 = arith.addf %40, %out : f32
      linalg.yield %41 : f32
    } -> tensor<f32>
    %11 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = []} ins(%10 : tensor<f32>) outs(%8 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.mulf %in, %cst_0 : f32
      linalg.yield %40 : f32
    } -> tensor<f32>
    // Backward: dy = (2/128) (y - t).
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<16x8xf32>) outs(%4 : tensor<16x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.mulf %in, %cst_1 : f32
      linalg.yield %40 : f32
    } -> tensor<16x8xf32>
    // dW2 = a^T dy.
    %13 = tensor.empty() : tensor<64x16xf32>
    %14 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<16x64xf32>) outs(%13 : tensor<64x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x16xf32>
    %15 = tensor.empty() : tensor<64x8xf32>
    %16 = linalg.fill ins(%cst : f32) outs(%15 : tensor<64x8xf32>) -> tensor<64x8xf32>
    %17 = linalg.matmul ins(%14, %12 : tensor<64x16xf32>, tensor<16x8xf32>) outs(%16 : tensor<64x8xf32>) -> tensor<64x8xf32>
    // db = sum(dy).
    %18 = tensor.empty() : tensor<f32>
    %19 = linalg.fill ins(%cst : f32) outs(%18 : tensor<f32>) -> tensor<f32>
    %20 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction"]} ins(%12 : tensor<16x8xf32>) outs(%19 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.addf %in, %out : f32
      linalg.yield %40 : f32
    } -> tensor<f32>
    // da = dy W2^T, dh = da * [h > 0].
    %21 = tensor.empty() : tensor<8x64xf32>
    %22 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<64x8xf32>) outs(%21 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %23 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x64xf32>) -> tensor<16x64xf32>
    %24 = linalg.matmul ins(%12, %22 : tensor<16x8xf32>, tensor<8x64xf32>) outs(%23 : tensor<16x64xf32>) -> tensor<16x64xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%24, %2 : tensor<16x64xf32>, tensor<16x64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %40 = arith.cmpf ogt, %in_3, %cst : f32
      %41 = arith.select %40, %in, %cst : f32
      linalg.yield %41 : f32
    } -> tensor<16x64xf32>
    // dW1 = x^T dh.
    %26 = tensor.empty() : tensor<32x16xf32>
    %27 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<16x32xf32>) outs(%26 : tensor<32x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<32x16xf32>
    %28 = tensor.empty() : tensor<32x64xf32>
    %29 = linalg.fill ins(%cst : f32) outs(%28 : tensor<32x64xf32>) -> tensor<32x64xf32>
    %30 = linalg.matmul ins(%27, %25 : tensor<32x16xf32>, tensor<16x64xf32>) outs(%29 : tensor<32x64xf32>) -> tensor<32x64xf32>
    // SGD: p' = p - 0.01 dp.
    %31 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %30 : tensor<32x64xf32>, tensor<32x64xf32>) outs(%28 : tensor<32x64xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %40 = arith.mulf %in_3, %cst_2 : f32
      %41 = arith.subf %in, %40 : f32
      linalg.yield %41 : f32
    } -> tensor<32x64xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %17 : tensor<64x8xf32>, tensor<64x8xf32>) outs(%15 : tensor<64x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %40 = arith.mulf %in_3, %cst_2 : f32
      %41 = arith.subf %in, %40 : f32
      linalg.yield %41 : f32
    } -> tensor<64x8xf32>
    %33 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = []} ins(%arg2, %20 : tensor<f32>, tensor<f32>) outs(%18 : tensor<f32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %40 = arith.mulf %in_3, %cst_2 : f32
      %41 = arith.subf %in, %40 : f32
      linalg.yield %41 : f32
    } -> tensor<f32>
    return %31, %32, %33, %11 : tensor<32x64xf32>, tensor<64x8xf32>, tensor<f32>, tensor<f32>
  }
}
