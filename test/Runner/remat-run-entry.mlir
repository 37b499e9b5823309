// Without --entry, the runner takes the one public function with a body that
// no other function calls: a step's public helper (as IREE and StableHLO
// exports leave them) is no candidate. test/Runner/remat-run-entry-errors.mlir
// has the cases it refuses.
// RUN: remat-run %s --print-results | FileCheck %s
// RUN: remat-run %s --entry=step --print-results | FileCheck %s
// The helper still runs when named.
// RUN: remat-run %s --entry=square | FileCheck %s --check-prefix=HELPER

// step(x) = x * x + x on the runner's inputs (values from
// docs/Running.md's documented stream, the same for both runs).
// CHECK: entry: @step
// CHECK-NEXT: result #0: tensor<4xf32> sum=0.331203584
// HELPER: entry: @square

#id = affine_map<(d0) -> (d0)>
func.func @square(%a: tensor<4xf32>) -> tensor<4xf32> {
  %init = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %t : tensor<4xf32>
}

func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = arith.addf %r, %x : tensor<4xf32>
  return %s : tensor<4xf32>
}

// A private function and a declaration are never candidates.
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
