// remat.arena_bytes on IR that holds no arena (here: on tensor IR, where
// remat-plan-arena used to write one while planning nothing) is dropped with
// a warning: remat-run lowers the step with deallocation and its own arena,
// and reports the arena that really ran. It used to skip both: every buffer
// leaked (peak 8196, the sum of all) and the report said "arena_bytes: 5".

// RUN: remat-run %s 2>&1 | FileCheck %s
// CHECK:      warning: ignoring remat.arena_bytes on 'step': it holds no arena
// The arena the lowering planned (as for @sequential in remat-run.mlir): s,
// then a and b at one offset, 4112 bytes, returned with s in it.
// CHECK:      peak_bytes: 4112
// CHECK-NEXT: arena_bytes: 4112 (one allocation
// CHECK:      leaked_bytes: 0

// Without the arena, every buffer is freed after its last use.
// RUN: remat-run %s --pipeline='builtin.module(remat-lower-to-cpu{arena=false})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OWN
// OWN:      peak_bytes: 4100
// OWN-NEXT: arena_bytes: 0 (no arena planned
// OWN:      leaked_bytes: 0

// remat-plan-arena on tensor IR plans nothing, so it writes nothing; the
// MLP example then runs as it does without the pass (docs/Arena.md).
// RUN: remat-opt %remat_src_root/examples/mlp.mlir --remat-plan-arena=remarks=false \
// RUN:   | FileCheck %s --check-prefix=PLAN
// PLAN-NOT: remat.arena_bytes
// RUN: remat-opt %remat_src_root/examples/mlp.mlir --remat-plan-arena=remarks=false \
// RUN:   | remat-run - > %t.planned
// RUN: remat-run %remat_src_root/examples/mlp.mlir > %t.plain
// RUN: grep -e '^result' -e '^peak_bytes' -e '^arena_bytes' %t.plain > %t.plain.lines
// RUN: grep -e '^result' -e '^peak_bytes' -e '^arena_bytes' %t.planned | diff %t.plain.lines -

#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
func.func @step(%x: tensor<1024xf32>) -> tensor<f32>
    attributes {remat.arena_bytes = 5 : i64} {
  %zero = arith.constant 0.0 : f32
  %s_init = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<f32>) -> tensor<f32>
  %a_init = tensor.empty() : tensor<1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%a_init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<1024xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%a : tensor<1024xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %b_init = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%b_init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%b : tensor<1024xf32>) outs(%s1 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s2 : tensor<f32>
}
