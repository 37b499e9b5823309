// mode=max-batch on IR: the chain of remat-pipeline-errors.mlir with a
// dynamic batch (%x is b x 4 floats) and the parameter %w (4 floats, 16
// bytes). At b samples every tensor of the batch holds 16*b bytes.
//
// checkpoint-all keeps everything: its peak is at %gb, with %x, %w and five
// tensors (%a, %b, %c, %gc, %gb) live: 16 + 6 x 16b = 96b + 16. A budget of
// 300 bytes fits b = 2 (208 bytes), not 3 (304).
// RUN: remat-opt %s --remat-pipeline="mode=max-batch budget=300 solver=checkpoint-all" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
// The same through the pass, costed at a hint of 3 samples: the search
// starts there, 3 does not fit, the bisection below it finds 2, and the
// guard and costs move from 3 to 2.
// RUN: remat-opt %s --remat-annotate-costs="dynamic-size-hint=3 warnings=false" --remat-infer-phases --remat-select-checkpoints="mode=max-batch budget=300 solver=checkpoint-all" 2>/dev/null | FileCheck %s
//
// REMARK: remark: remat plan: solver 'checkpoint-all' (max-batch) optimal{{.*}}; predicted peak 208 bytes (budget 300, checkpoint-all 208); recomputes 0 op(s)
// REMARK: remark: max-batch: 2 samples is the largest batch that solver 'checkpoint-all' fits in the budget of 300 bytes; the plan and the dynamic-size guard are for that batch
// REMARK-NOT: warning

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    remat.batch = 2 : i64
// CHECK-SAME:    remat.dynamic_size_hint = 2 : i64
// CHECK-SAME:    mode = "max-batch", status = "optimal", budget = 300, predicted_peak = 208, baseline_peak = 208
// CHECK:         %[[BOUND:.*]] = arith.constant 2 : index
// CHECK:         %[[DIM:.*]] = tensor.dim {{.*}}%arg0
// CHECK:         %[[FITS:.*]] = arith.cmpi ule, %[[DIM]], %[[BOUND]]
// CHECK:         cf.assert %[[FITS]], "dimension 0 of argument #0 exceeds 2, the dynamic-size hint the rematerialization plan assumed"
// CHECK:         math.tanh {{.*}}remat.cost = #remat.cost<bytes = [32], flops = 8>

// Recomputing helps: no schedule needs more than three tensors of the batch
// at once (%a and %c recomputed), 16 + 4 x 16b = 64b + 16, which fits
// b = 4 in 300 bytes. The portfolio lands between checkpoint-all's batch
// and that bound, with recomputations.
// RUN: remat-opt %s --remat-pipeline="mode=max-batch budget=300" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// AUTO: remark: remat plan: solver 'auto' (max-batch) {{.*}}; predicted peak {{[0-9]+}} bytes (budget 300, checkpoint-all {{[0-9]+}}); recomputes {{[1-9][0-9]*}} op(s)
// AUTO: remark: max-batch: {{[234]}} samples is the largest batch that solver 'auto' fits in the budget of 300 bytes
// With a host link, each batch gets the joint plan (docs/Offload.md): over
// `ideal` it offloads instead of recomputing, at the same batch; the IR gets
// the copies and the wait.
// RUN: remat-opt %s --remat-pipeline="mode=max-batch budget=300 host-link=ideal" -o %t.offload.mlir 2>&1 | FileCheck %s --check-prefix=OFFLOAD
// RUN: FileCheck %s --check-prefix=OFFLOADOPS --input-file=%t.offload.mlir
// OFFLOAD: remark: remat plan: solver 'auto' (max-batch) {{.*}}; offloads {{[1-9][0-9]*}} value(s) over ideal
// OFFLOAD: remark: max-batch: 3 samples is the largest batch that solver 'auto' fits in the budget of 300 bytes
// OFFLOADOPS: remat.batch = 3
// OFFLOADOPS: remat.offload
// OFFLOADOPS: remat.wait
// OFFLOADOPS: remat.prefetch
func.func @chain(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %a = math.tanh %x : tensor<?x4xf32>
  %b = math.tanh %a : tensor<?x4xf32>
  %c = math.tanh %b : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %gc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%c, %w : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%v: f32, %p: f32, %o: f32):
      %m = arith.mulf %v, %p : f32
      linalg.yield %m : f32
  } -> tensor<?x4xf32>
  %gb = arith.mulf %gc, %b : tensor<?x4xf32>
  %ga = arith.mulf %gb, %a : tensor<?x4xf32>
  return %c, %ga : tensor<?x4xf32>, tensor<?x4xf32>
}
