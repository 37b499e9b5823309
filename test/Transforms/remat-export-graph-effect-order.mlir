// The effect order through the graph JSON: the second call comes after the
// first (an ordering edge, `after`), remat-solve keeps it (its smallest
// budget is the ordered peak, 65,552 bytes, not the 49,168 a reordering would
// reach), and the saved schedule applies.
//
// RUN: remat-opt %s --remat-annotate-costs --remat-infer-phases --remat-export-graph=output=%t.graph.json -o %t.prepared.mlir
// RUN: FileCheck %s --check-prefix=GRAPH --input-file=%t.graph.json
// RUN: remat-solve %t.graph.json --mode=min-budget --quiet -o %t.minb.json
// RUN: FileCheck %s --check-prefix=SOLVED --input-file=%t.minb.json
// RUN: remat-opt %t.prepared.mlir --remat-select-checkpoints=schedule=%t.minb.json --remat-rematerialize 2>/dev/null | FileCheck %s

// GRAPH:      "after": [
// GRAPH-NEXT:   1
// GRAPH-NEXT: ],
// GRAPH:      "name": "func.call#2@

// SOLVED: "peak_bytes": 65552,
// SOLVED: "smallest_budget": 65552,

// CHECK-LABEL: func.func @two_calls
// CHECK:         call @k1
// CHECK:         call @k2
#id = affine_map<(d0) -> (d0)>
func.func private @k1(tensor<4096xf32>) -> tensor<4096xf32>
func.func private @k2(tensor<4096xf32>) -> tensor<4xf32>
func.func @two_calls(%x: tensor<4096xf32>) -> (tensor<f32>, tensor<4096xf32>) {
  %a = func.call @k1(%x) {remat.cost = #remat.cost<bytes = [16384], flops = 1000>} : (tensor<4096xf32>) -> tensor<4096xf32>
  %b = func.call @k2(%x) {remat.cost = #remat.cost<bytes = [16], flops = 1000>} : (tensor<4096xf32>) -> tensor<4xf32>
  %eb = tensor.empty() : tensor<8192xf32>
  %big = linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, #id], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%eb : tensor<8192xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8192xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%big : tensor<8192xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<4096xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %x : tensor<4096xf32>, tensor<4096xf32>) outs(%e2 : tensor<4096xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %m = arith.mulf %i, %j : f32
    linalg.yield %m : f32
  } -> tensor<4096xf32>
  return %loss, %g : tensor<f32>, tensor<4096xf32>
}
