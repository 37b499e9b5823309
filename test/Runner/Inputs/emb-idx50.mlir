// One training step of an embedding (10 rows) and a linear layer (3
// classes) with cross-entropy, as remat-import-torch wrote it when it
// accepted `--input idx=2x4:i64:50`: token ids drawn from [0, 50) index the
// 10-row table (remat-run-index-bounds.mlir).
func.func @emb(
    %emb_weight: tensor<10x4xf32> loc("emb.weight"),
    %fc_weight: tensor<3x4xf32> loc("fc.weight"),
    %fc_bias: tensor<3xf32> loc("fc.bias"),
    %x: tensor<2x4xi64> {remat.data, remat.high = 50 : i64} loc("idx"),
    %x_1: tensor<2x4xi64> {remat.data, remat.high = 3 : i64} loc("targets"))
    -> (tensor<f32>, tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xf32>) {
    %c1 = arith.constant dense<0x3F800000> : tensor<f32> loc("loss/tangent")
    %e2 = tensor.empty() : tensor<2x4x4xf32> loc("emb/aten.embedding")
    %emb3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x4xi64>) outs(%e2 : tensor<2x4x4xf32>) {
      ^bb0(%a0: i64, %a1: f32):
      %row = arith.index_cast %a0 : i64 to index
      %col = linalg.index 2 : index
      %v = tensor.extract %emb_weight[%row, %col] : tensor<10x4xf32>
      linalg.yield %v : f32
    } -> tensor<2x4x4xf32> loc("emb/aten.embedding")
    %e4 = tensor.empty() : tensor<4x3xf32> loc("fc/aten.transpose")
    %t5 = linalg.transpose ins(%fc_weight : tensor<3x4xf32>) outs(%e4 : tensor<4x3xf32>) permutation = [1, 0] loc("fc/aten.transpose")
    %r6 = tensor.collapse_shape %emb3 [[0, 1, 2]] : tensor<2x4x4xf32> into tensor<32xf32> loc("fc/aten.view")
    %r7 = tensor.expand_shape %r6 [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32> loc("fc/aten.view")
    %e8 = tensor.empty() : tensor<8x3xf32> loc("fc/aten.mm")
    %c9 = arith.constant 0x00000000 : f32 loc("fc/aten.mm")
    %f10 = linalg.fill ins(%c9 : f32) outs(%e8 : tensor<8x3xf32>) -> tensor<8x3xf32> loc("fc/aten.mm")
    %mm11 = linalg.matmul ins(%r7, %t5 : tensor<8x4xf32>, tensor<4x3xf32>) outs(%f10 : tensor<8x3xf32>) -> tensor<8x3xf32> loc("fc/aten.mm")
    %e12 = tensor.empty() : tensor<8x3xf32> loc("fc/aten.mul")
    %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm11 : tensor<8x3xf32>) outs(%e12 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %k0 = arith.constant 0x3F800000 : f32
      %r = arith.mulf %a0, %k0 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("fc/aten.mul")
    %e14 = tensor.empty() : tensor<3xf32> loc("fc/aten.mul")
    %g15 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%fc_bias : tensor<3xf32>) outs(%e14 : tensor<3xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %k0 = arith.constant 0x3F800000 : f32
      %r = arith.mulf %a0, %k0 : f32
      linalg.yield %r : f32
    } -> tensor<3xf32> loc("fc/aten.mul")
    %e16 = tensor.empty() : tensor<8x3xf32> loc("fc/aten.add")
    %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g15, %g13 : tensor<3xf32>, tensor<8x3xf32>) outs(%e16 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.addf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("fc/aten.add")
    %r18 = tensor.collapse_shape %g17 [[0, 1]] : tensor<8x3xf32> into tensor<24xf32> loc("fc/aten.view")
    %r19 = tensor.expand_shape %r18 [[0, 1, 2]] output_shape [2, 4, 3] : tensor<24xf32> into tensor<2x4x3xf32> loc("fc/aten.view")
    %r20 = tensor.collapse_shape %r19 [[0, 1, 2]] : tensor<2x4x3xf32> into tensor<24xf32> loc("<top>/aten.view")
    %r21 = tensor.expand_shape %r20 [[0, 1]] output_shape [8, 3] : tensor<24xf32> into tensor<8x3xf32> loc("<top>/aten.view")
    %r22 = tensor.collapse_shape %x_1 [[0, 1]] : tensor<2x4xi64> into tensor<8xi64> loc("<top>/aten.view")
    %e23 = tensor.empty() : tensor<8xf32> loc("<top>/aten.amax")
    %c24 = arith.constant 0xFF800000 : f32 loc("<top>/aten.amax")
    %f25 = linalg.fill ins(%c24 : f32) outs(%e23 : tensor<8xf32>) -> tensor<8xf32> loc("<top>/aten.amax")
    %g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%r21 : tensor<8x3xf32>) outs(%f25 : tensor<8xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %s = arith.maximumf %a0, %a1 : f32
      linalg.yield %s : f32
    } -> tensor<8xf32> loc("<top>/aten.amax")
    %r27 = tensor.expand_shape %g26 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32> loc("<top>/aten.amax")
    %e28 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.sub")
    %g29 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r21, %r27 : tensor<8x3xf32>, tensor<8x1xf32>) outs(%e28 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.subf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.sub")
    %e30 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.exp")
    %g31 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g29 : tensor<8x3xf32>) outs(%e30 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %r = math.exp %a0 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.exp")
    %e32 = tensor.empty() : tensor<8xf32> loc("<top>/aten.sum")
    %c33 = arith.constant 0x00000000 : f32 loc("<top>/aten.sum")
    %f34 = linalg.fill ins(%c33 : f32) outs(%e32 : tensor<8xf32>) -> tensor<8xf32> loc("<top>/aten.sum")
    %g35 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%g31 : tensor<8x3xf32>) outs(%f34 : tensor<8xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %s = arith.addf %a0, %a1 : f32
      linalg.yield %s : f32
    } -> tensor<8xf32> loc("<top>/aten.sum")
    %r36 = tensor.expand_shape %g35 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32> loc("<top>/aten.sum")
    %e37 = tensor.empty() : tensor<8x1xf32> loc("<top>/aten.log")
    %g38 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r36 : tensor<8x1xf32>) outs(%e37 : tensor<8x1xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %r = math.log %a0 : f32
      linalg.yield %r : f32
    } -> tensor<8x1xf32> loc("<top>/aten.log")
    %e39 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.sub")
    %g40 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g29, %g38 : tensor<8x3xf32>, tensor<8x1xf32>) outs(%e39 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.subf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.sub")
    %e41 = tensor.empty() : tensor<f32> loc("<top>/aten.nll_loss_forward")
    %c42 = arith.constant 0x00000000 : f32 loc("<top>/aten.nll_loss_forward")
    %f43 = linalg.fill ins(%c42 : f32) outs(%e41 : tensor<f32>) -> tensor<f32> loc("<top>/aten.nll_loss_forward")
    %e44 = tensor.empty() : tensor<f32> loc("<top>/aten.nll_loss_forward")
    %c45 = arith.constant 0x00000000 : f32 loc("<top>/aten.nll_loss_forward")
    %f46 = linalg.fill ins(%c45 : f32) outs(%e44 : tensor<f32>) -> tensor<f32> loc("<top>/aten.nll_loss_forward")
    %nll47:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%g40, %r22 : tensor<8x3xf32>, tensor<8xi64>) outs(%f43, %f46 : tensor<f32>, tensor<f32>) {
      ^bb0(%a0: f32, %a1: i64, %a2: f32, %a3: f32):
      %c = linalg.index 1 : index
      %ci = arith.index_cast %c : index to i64
      %hit = arith.cmpi eq, %ci, %a1 : i64
      %ign = arith.constant -100 : i64
      %valid = arith.cmpi ne, %a1, %ign : i64
      %use = arith.andi %hit, %valid : i1
      %l = arith.subf %a2, %a0 : f32
      %one = arith.constant 1.0 : f32
      %n = arith.addf %a3, %one : f32
      %lo = arith.select %use, %l, %a2 : f32
      %cnt = arith.select %use, %n, %a3 : f32
      linalg.yield %lo, %cnt : f32, f32
    } -> (tensor<f32>, tensor<f32>) loc("<top>/aten.nll_loss_forward")
    %e49 = tensor.empty() : tensor<f32> loc("<top>/aten.nll_loss_forward")
    %g50 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%nll47#0, %nll47#1 : tensor<f32>, tensor<f32>) outs(%e49 : tensor<f32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.divf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<f32> loc("<top>/aten.nll_loss_forward")
    %e51 = tensor.empty() : tensor<f32> loc("<top>/aten.div")
    %g52 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%c1, %nll47#1 : tensor<f32>, tensor<f32>) outs(%e51 : tensor<f32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.divf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<f32> loc("<top>/aten.div")
    %r53 = tensor.expand_shape %r22 [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64> loc("<top>/aten.unsqueeze")
    %e54 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.zeros_like")
    %c55 = arith.constant 0x00000000 : f32 loc("<top>/aten.zeros_like")
    %f56 = linalg.fill ins(%c55 : f32) outs(%e54 : tensor<8x3xf32>) -> tensor<8x3xf32> loc("<top>/aten.zeros_like")
    %sc57 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%r53 : tensor<8x1xi64>) outs(%f56 : tensor<8x3xf32>) {
      ^bb0(%a0: i64, %a1: f32):
      %at = linalg.index 1 : index
      %ati = arith.index_cast %at : index to i64
      %hit = arith.cmpi eq, %a0, %ati : i64
      %val = arith.constant 0xBF800000 : f32
      %r = arith.select %hit, %val, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.scatter")
    %e58 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.mul")
    %g59 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sc57, %g52 : tensor<8x3xf32>, tensor<f32>) outs(%e58 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.mulf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.mul")
    %e60 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.exp")
    %g61 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g40 : tensor<8x3xf32>) outs(%e60 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %r = math.exp %a0 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.exp")
    %e62 = tensor.empty() : tensor<8xf32> loc("<top>/aten.sum")
    %c63 = arith.constant 0x00000000 : f32 loc("<top>/aten.sum")
    %f64 = linalg.fill ins(%c63 : f32) outs(%e62 : tensor<8xf32>) -> tensor<8xf32> loc("<top>/aten.sum")
    %g65 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%g59 : tensor<8x3xf32>) outs(%f64 : tensor<8xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %s = arith.addf %a0, %a1 : f32
      linalg.yield %s : f32
    } -> tensor<8xf32> loc("<top>/aten.sum")
    %r66 = tensor.expand_shape %g65 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32> loc("<top>/aten.sum")
    %e67 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.mul")
    %g68 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g61, %r66 : tensor<8x3xf32>, tensor<8x1xf32>) outs(%e67 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.mulf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.mul")
    %e69 = tensor.empty() : tensor<8x3xf32> loc("<top>/aten.sub")
    %g70 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g59, %g68 : tensor<8x3xf32>, tensor<8x3xf32>) outs(%e69 : tensor<8x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %a2: f32):
      %r = arith.subf %a0, %a1 : f32
      linalg.yield %r : f32
    } -> tensor<8x3xf32> loc("<top>/aten.sub")
    %r71 = tensor.collapse_shape %g70 [[0, 1]] : tensor<8x3xf32> into tensor<24xf32> loc("<top>/aten.view")
    %r72 = tensor.expand_shape %r71 [[0, 1, 2]] output_shape [2, 4, 3] : tensor<24xf32> into tensor<2x4x3xf32> loc("<top>/aten.view")
    %r73 = tensor.collapse_shape %r72 [[0, 1, 2]] : tensor<2x4x3xf32> into tensor<24xf32> loc("fc/aten.view")
    %r74 = tensor.expand_shape %r73 [[0, 1]] output_shape [8, 3] : tensor<24xf32> into tensor<8x3xf32> loc("fc/aten.view")
    %e75 = tensor.empty() : tensor<3x4xf32> loc("fc/aten.transpose")
    %t76 = linalg.transpose ins(%t5 : tensor<4x3xf32>) outs(%e75 : tensor<3x4xf32>) permutation = [1, 0] loc("fc/aten.transpose")
    %e77 = tensor.empty() : tensor<8x4xf32> loc("fc/aten.mm")
    %c78 = arith.constant 0x00000000 : f32 loc("fc/aten.mm")
    %f79 = linalg.fill ins(%c78 : f32) outs(%e77 : tensor<8x4xf32>) -> tensor<8x4xf32> loc("fc/aten.mm")
    %mm80 = linalg.matmul ins(%r74, %t76 : tensor<8x3xf32>, tensor<3x4xf32>) outs(%f79 : tensor<8x4xf32>) -> tensor<8x4xf32> loc("fc/aten.mm")
    %e81 = tensor.empty() : tensor<3x8xf32> loc("fc/aten.transpose")
    %t82 = linalg.transpose ins(%r74 : tensor<8x3xf32>) outs(%e81 : tensor<3x8xf32>) permutation = [1, 0] loc("fc/aten.transpose")
    %e83 = tensor.empty() : tensor<3x4xf32> loc("fc/aten.mm")
    %c84 = arith.constant 0x00000000 : f32 loc("fc/aten.mm")
    %f85 = linalg.fill ins(%c84 : f32) outs(%e83 : tensor<3x4xf32>) -> tensor<3x4xf32> loc("fc/aten.mm")
    %mm86 = linalg.matmul ins(%t82, %r7 : tensor<3x8xf32>, tensor<8x4xf32>) outs(%f85 : tensor<3x4xf32>) -> tensor<3x4xf32> loc("fc/aten.mm")
    %e87 = tensor.empty() : tensor<4x3xf32> loc("fc/aten.transpose")
    %t88 = linalg.transpose ins(%mm86 : tensor<3x4xf32>) outs(%e87 : tensor<4x3xf32>) permutation = [1, 0] loc("fc/aten.transpose")
    %e89 = tensor.empty() : tensor<3xf32> loc("fc/aten.sum")
    %c90 = arith.constant 0x00000000 : f32 loc("fc/aten.sum")
    %f91 = linalg.fill ins(%c90 : f32) outs(%e89 : tensor<3xf32>) -> tensor<3xf32> loc("fc/aten.sum")
    %g92 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%r74 : tensor<8x3xf32>) outs(%f91 : tensor<3xf32>) {
      ^bb0(%a0: f32, %a1: f32):
      %s = arith.addf %a0, %a1 : f32
      linalg.yield %s : f32
    } -> tensor<3xf32> loc("fc/aten.sum")
    %r93 = tensor.expand_shape %g92 [[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32> loc("fc/aten.sum")
    %r94 = tensor.collapse_shape %r93 [[0, 1]] : tensor<1x3xf32> into tensor<3xf32> loc("fc/aten.view")
    %r95 = tensor.collapse_shape %mm80 [[0, 1]] : tensor<8x4xf32> into tensor<32xf32> loc("fc/aten.view")
    %r96 = tensor.expand_shape %r95 [[0, 1, 2]] output_shape [2, 4, 4] : tensor<32xf32> into tensor<2x4x4xf32> loc("fc/aten.view")
    %e97 = tensor.empty() : tensor<3x4xf32> loc("fc/aten.transpose")
    %t98 = linalg.transpose ins(%t88 : tensor<4x3xf32>) outs(%e97 : tensor<3x4xf32>) permutation = [1, 0] loc("fc/aten.transpose")
    %r99 = tensor.collapse_shape %r96 [[0, 1, 2]] : tensor<2x4x4xf32> into tensor<32xf32> loc("emb/aten.embedding_dense_backward")
    %r100 = tensor.expand_shape %r99 [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32> loc("emb/aten.embedding_dense_backward")
    %r101 = tensor.collapse_shape %x [[0, 1]] : tensor<2x4xi64> into tensor<8xi64> loc("emb/aten.embedding_dense_backward")
    %e102 = tensor.empty() : tensor<10x4xf32> loc("emb/aten.embedding_dense_backward")
    %c103 = arith.constant 0x00000000 : f32 loc("emb/aten.embedding_dense_backward")
    %f104 = linalg.fill ins(%c103 : f32) outs(%e102 : tensor<10x4xf32>) -> tensor<10x4xf32> loc("emb/aten.embedding_dense_backward")
    %embb105 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%r101, %r100 : tensor<8xi64>, tensor<8x4xf32>) outs(%f104 : tensor<10x4xf32>) {
      ^bb0(%a0: i64, %a1: f32, %a2: f32):
      %v = linalg.index 0 : index
      %vi = arith.index_cast %v : index to i64
      %hit = arith.cmpi eq, %a0, %vi : i64
      %s = arith.addf %a2, %a1 : f32
      %r = arith.select %hit, %s, %a2 : f32
      linalg.yield %r : f32
    } -> tensor<10x4xf32> loc("emb/aten.embedding_dense_backward")
    func.return %g50, %embb105, %t98, %r94 : tensor<f32>, tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xf32> loc("output")
}
