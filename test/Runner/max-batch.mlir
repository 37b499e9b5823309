// Max batch on IR, executed: a two-layer MLP step with a dynamic batch is
// planned with mode=max-batch at a budget; the planned step then runs on
// the CPU at the batch found, through the same lowering as remat-run, and
//   * its measured peak heap bytes plus the parameters' 3072 bytes (16x32 and
//     32x8 floats: constants of the driver, globals rather than heap) stay
//     within the budget;
//   * its results are bitwise equal to those of the unplanned step at that
//     batch (printed as i32 bit patterns);
//   * one sample more is refused by the dynamic-size guard.
// @main runs the step at 987654321 rows, a placeholder replaced by the batch.
//
// The budget, 12 KiB = 12288 bytes, is below the checkpoint-all peak at the
// batch found, so the plan recomputes. That batch and plan come from auto's
// Checkmate members (without COIN-OR the largest batch fits without
// recomputing).
// REQUIRES: coinor
//
// RUN: remat-opt %s --remat-pipeline="mode=max-batch budget=12KiB functions=mlp inline=false" -o %t.planned.mlir 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.planned.mlir
// RUN: bash %S/Inputs/max-batch-run.sh %s %t.planned.mlir %t 12288 3072 %remat_lib_dir %mlir_runner_utils %mlir_c_runner_utils | FileCheck %s --check-prefix=EXEC

// REMARK: remark: remat plan: solver 'auto' (max-batch) {{optimal|feasible}}{{.*}}; predicted peak [[PEAK:[0-9]+]] bytes (budget 12288, checkpoint-all [[ALL:[0-9]+]]); recomputes [[N:[1-9][0-9]*]] op(s)
// REMARK: remark: max-batch: [[B:[0-9]+]] samples is the largest batch that solver 'auto' fits in the budget of 12288 bytes; the plan and the dynamic-size guard are for that batch

// IR-LABEL: func.func @mlp(
// IR-SAME:    remat.batch = [[B:[0-9]+]] : i64
// IR-SAME:    remat.dynamic_size_hint = [[B]] : i64
// IR-SAME:    remat.plan = #remat.plan<solver = "auto", mode = "max-batch"
// IR:         cf.assert {{.*}} "dimension 0 of argument #0 exceeds [[B]], the dynamic-size hint the rematerialization plan assumed"

// EXEC: batch {{[0-9]+}}: measured peak {{[0-9]+}} + parameters 3072 <= budget 12288
// EXEC-NEXT: results: planned == unplanned
// EXEC-NEXT: batch {{[0-9]+}} + 1: dimension 0 of argument #0 exceeds {{[0-9]+}}, the dynamic-size hint the rematerialization plan assumed

// x: batch x 16 (data); w1: 16 x 32, w2: 32 x 8 (parameters).
// Forward: h = x w1, a = tanh(h), z = a w2, loss = sum(z * z).
// Backward: dz = 2 z, dw2 = a^T dz, da = dz w2^T, dh = da (1 - a^2),
// dw1 = x^T dh.
func.func @mlp(%x: tensor<?x16xf32>, %w1: tensor<16x32xf32>,
               %w2: tensor<32x8xf32>)
    -> (tensor<f32>, tensor<16x32xf32>, tensor<32x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e32 = tensor.empty(%n) : tensor<?x32xf32>
  %f32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<?x16xf32>, tensor<16x32xf32>) outs(%f32 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %ea = tensor.empty(%n) : tensor<?x32xf32>
  %a = linalg.tanh ins(%h : tensor<?x32xf32>) outs(%ea : tensor<?x32xf32>) -> tensor<?x32xf32>
  %e8 = tensor.empty(%n) : tensor<?x8xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %z = linalg.matmul ins(%a, %w2 : tensor<?x32xf32>, tensor<32x8xf32>) outs(%f8 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %ezz = tensor.empty(%n) : tensor<?x8xf32>
  %zz = linalg.mul ins(%z, %z : tensor<?x8xf32>, tensor<?x8xf32>) outs(%ezz : tensor<?x8xf32>) -> tensor<?x8xf32>
  %el = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%zz : tensor<?x8xf32>) outs(%fl : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }

  %edz = tensor.empty(%n) : tensor<?x8xf32>
  %dz = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<?x8xf32>) outs(%edz : tensor<?x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %t = arith.mulf %v, %two : f32
      linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %eat = tensor.empty(%n) : tensor<32x?xf32>
  %at = linalg.transpose ins(%a : tensor<?x32xf32>) outs(%eat : tensor<32x?xf32>) permutation = [1, 0]
  %ew2 = tensor.empty() : tensor<32x8xf32>
  %fw2 = linalg.fill ins(%zero : f32) outs(%ew2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  %dw2 = linalg.matmul ins(%at, %dz : tensor<32x?xf32>, tensor<?x8xf32>) outs(%fw2 : tensor<32x8xf32>) -> tensor<32x8xf32>
  %ew2t = tensor.empty() : tensor<8x32xf32>
  %w2t = linalg.transpose ins(%w2 : tensor<32x8xf32>) outs(%ew2t : tensor<8x32xf32>) permutation = [1, 0]
  %eda = tensor.empty(%n) : tensor<?x32xf32>
  %fda = linalg.fill ins(%zero : f32) outs(%eda : tensor<?x32xf32>) -> tensor<?x32xf32>
  %da = linalg.matmul ins(%dz, %w2t : tensor<?x8xf32>, tensor<8x32xf32>) outs(%fda : tensor<?x32xf32>) -> tensor<?x32xf32>
  %edh = tensor.empty(%n) : tensor<?x32xf32>
  %dh = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%da, %a : tensor<?x32xf32>, tensor<?x32xf32>) outs(%edh : tensor<?x32xf32>) {
    ^bb0(%g: f32, %v: f32, %o: f32):
      %sq = arith.mulf %v, %v : f32
      %d = arith.subf %one, %sq : f32
      %t = arith.mulf %g, %d : f32
      linalg.yield %t : f32
  } -> tensor<?x32xf32>
  %ext = tensor.empty(%n) : tensor<16x?xf32>
  %xt = linalg.transpose ins(%x : tensor<?x16xf32>) outs(%ext : tensor<16x?xf32>) permutation = [1, 0]
  %ew1 = tensor.empty() : tensor<16x32xf32>
  %fw1 = linalg.fill ins(%zero : f32) outs(%ew1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %dw1 = linalg.matmul ins(%xt, %dh : tensor<16x?xf32>, tensor<?x32xf32>) outs(%fw1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %loss, %dw1, %dw2 : tensor<f32>, tensor<16x32xf32>, tensor<32x8xf32>
}

func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}

// Prints the bit patterns of a 16x32 or 32x8 result (dynamic here, so that
// one function serves both).
func.func private @print(%t: tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xi32>
  %bits = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%e : tensor<?x?xi32>) {
    ^bb0(%v: f32, %o: i32):
      %b = arith.bitcast %v : f32 to i32
      linalg.yield %b : i32
  } -> tensor<?x?xi32>
  %u = tensor.cast %bits : tensor<?x?xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}

func.func private @run(%rows: index) {
  %e = tensor.empty(%rows) : tensor<?x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x16xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %k = arith.addi %i, %j : index
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      %s = math.sin %kf : f32
      linalg.yield %s : f32
  } -> tensor<?x16xf32>
  %w1 = arith.constant dense<0.0625> : tensor<16x32xf32>
  %w2 = arith.constant dense<-0.125> : tensor<32x8xf32>
  %loss, %dw1, %dw2 = func.call @mlp(%x, %w1, %w2)
      : (tensor<?x16xf32>, tensor<16x32xf32>, tensor<32x8xf32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<32x8xf32>)
  %l = tensor.expand_shape %loss [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %lc = tensor.cast %l : tensor<1x1xf32> to tensor<?x?xf32>
  func.call @print(%lc) : (tensor<?x?xf32>) -> ()
  %g1 = tensor.cast %dw1 : tensor<16x32xf32> to tensor<?x?xf32>
  func.call @print(%g1) : (tensor<?x?xf32>) -> ()
  %g2 = tensor.cast %dw2 : tensor<32x8xf32> to tensor<?x?xf32>
  func.call @print(%g2) : (tensor<?x?xf32>) -> ()
  return
}

func.func @main() {
  %rows = arith.constant 987654321 : index
  func.call @run(%rows) : (index) -> ()
  return
}
