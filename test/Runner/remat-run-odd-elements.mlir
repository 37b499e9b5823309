// Element types whose allocation is larger than their bits: LLVM allocates
// an i24 in 4 bytes, an f80 in 16 and a vector<3xf32> in 16 (its alloc
// size). The cost model, the memory analysis and the arena size buffers by
// that same number (Analysis/Storage.h), so the arena's buffers neither
// overlap nor run past it: each step gives the same results with the arena
// as with a buffer per value, and those results are the right ones.
//
// RUN: remat-opt %s --remat-annotate-costs | FileCheck %s --check-prefix=COST
// RUN: remat-opt %s --remat-annotate-costs --remat-memory-report=output=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=PEAK
//
// RUN: for f in i24 f80 vec3; do \
// RUN:   remat-run %s --entry=$f --print-results | grep -e entry -e result -e values > %t.$f.arena && \
// RUN:   remat-run %s --entry=$f --print-results --pipeline='builtin.module(remat-lower-to-cpu{arena=false})' | grep -e entry -e result -e values > %t.$f.plain && \
// RUN:   diff %t.$f.arena %t.$f.plain || exit 1; done
// RUN: cat %t.i24.arena %t.f80.arena %t.vec3.arena | FileCheck %s
// RUN: remat-run %s --entry=i24 | FileCheck %s --check-prefix=ARENA-I24
// RUN: remat-run %s --entry=f80 | FileCheck %s --check-prefix=ARENA-F80
// RUN: remat-run %s --entry=vec3 | FileCheck %s --check-prefix=ARENA-VEC3

// x[i] = sin(0.1 i) / 2 (docs/Running.md).
// i24: 2 * trunc(1000 x[i]) + 1.
// CHECK-LABEL: entry: @i24
// CHECK:       values: [1, 99, 199, 295, 389, 479, 565, 645, 717, 783, 841, 891, 933, 963, 985, 997]
// f80: 3 x[i], rounded to f32.
// CHECK-LABEL: entry: @f80
// CHECK:       values: [0, 0.149750113, 0.298004001, 0.443280339,
// vec3: the sum of the three lanes of 3 x[i].
// CHECK-LABEL: entry: @vec3
// CHECK:       values: [0, 0.44925034, 0.894011974, 1.32984102,

// Three buffers of 16 elements each: i24 4 + 4 + 4 bytes an element.
// ARENA-I24: arena_bytes: 192 (one allocation
// ARENA-F80: arena_bytes: 576 (one allocation
// ARENA-VEC3: arena_bytes: 576 (one allocation

// Predicted peaks: the three buffers and the 64-byte argument.
// PEAK:      "name": "i24",
// PEAK-NEXT: "peak_bytes": 256,
// PEAK:      "name": "f80",
// PEAK-NEXT: "peak_bytes": 640,
// PEAK:      "name": "vec3",
// PEAK-NEXT: "peak_bytes": 640,

// COST-LABEL: func.func @i24
// COST:   remat.cost = #remat.cost<bytes = [64]
// COST-LABEL: func.func @f80
// COST:   remat.cost = #remat.cost<bytes = [256]
// COST-LABEL: func.func @vec3
// COST:   remat.cost = #remat.cost<bytes = [256]

#id = affine_map<(d0) -> (d0)>
func.func @i24(%x: tensor<16xf32>) -> tensor<16xf32> {
  %k = arith.constant 1000.0 : f32
  %one = arith.constant 1 : i24
  %e1 = tensor.empty() : tensor<16xi24>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e1 : tensor<16xi24>) {
  ^bb0(%v: f32, %o: i24):
    %m = arith.mulf %v, %k : f32
    %i = arith.fptosi %m : f32 to i24
    linalg.yield %i : i24
  } -> tensor<16xi24>
  %e2 = tensor.empty() : tensor<16xi24>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xi24>) outs(%e2 : tensor<16xi24>) {
  ^bb0(%v: i24, %o: i24):
    %i = arith.addi %v, %one : i24
    linalg.yield %i : i24
  } -> tensor<16xi24>
  %e3 = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xi24>, tensor<16xi24>) outs(%e3 : tensor<16xf32>) {
  ^bb0(%u: i24, %v: i24, %o: f32):
    %fu = arith.sitofp %u : i24 to f32
    %fv = arith.sitofp %v : i24 to f32
    %s = arith.addf %fv, %fu : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %c : tensor<16xf32>
}

func.func @f80(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e1 = tensor.empty() : tensor<16xf80>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e1 : tensor<16xf80>) {
  ^bb0(%v: f32, %o: f80):
    %i = arith.extf %v : f32 to f80
    linalg.yield %i : f80
  } -> tensor<16xf80>
  %e2 = tensor.empty() : tensor<16xf80>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf80>) outs(%e2 : tensor<16xf80>) {
  ^bb0(%v: f80, %o: f80):
    %i = arith.addf %v, %v : f80
    linalg.yield %i : f80
  } -> tensor<16xf80>
  %e3 = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xf80>, tensor<16xf80>) outs(%e3 : tensor<16xf32>) {
  ^bb0(%u: f80, %v: f80, %o: f32):
    %s = arith.addf %u, %v : f80
    %t = arith.truncf %s : f80 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %c : tensor<16xf32>
}

func.func @vec3(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e1 = tensor.empty() : tensor<16xvector<3xf32>>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e1 : tensor<16xvector<3xf32>>) {
  ^bb0(%v: f32, %o: vector<3xf32>):
    %i = vector.broadcast %v : f32 to vector<3xf32>
    linalg.yield %i : vector<3xf32>
  } -> tensor<16xvector<3xf32>>
  %e2 = tensor.empty() : tensor<16xvector<3xf32>>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xvector<3xf32>>) outs(%e2 : tensor<16xvector<3xf32>>) {
  ^bb0(%v: vector<3xf32>, %o: vector<3xf32>):
    %i = arith.addf %v, %v : vector<3xf32>
    linalg.yield %i : vector<3xf32>
  } -> tensor<16xvector<3xf32>>
  %e3 = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xvector<3xf32>>, tensor<16xvector<3xf32>>) outs(%e3 : tensor<16xf32>) {
  ^bb0(%u: vector<3xf32>, %v: vector<3xf32>, %o: f32):
    %s = arith.addf %u, %v : vector<3xf32>
    %t = vector.reduction <add>, %s : vector<3xf32> into f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %c : tensor<16xf32>
}
