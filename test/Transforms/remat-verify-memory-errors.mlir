// RUN: remat-opt %s --split-input-file --remat-verify-memory --verify-diagnostics -o /dev/null

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
// The chain in program order peaks at %gb: a,b,c,gc,gb + args = 112 bytes,
// over the plan's 96.
// expected-error @below {{peak memory of 112 bytes exceeds the budget of 96 bytes}}
func.func @over_budget(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24>} {
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  // expected-note @below {{the peak of 112 bytes is reached at this 'arith.mulf' (32 bytes of it are arguments)}}
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

// Neither a remat.plan nor budget=: nothing to verify against, which is an
// error rather than a silent pass (bad-input tour, issue 11).
#c16 = #remat.cost<bytes = [16], flops = 4>
// expected-error @below {{remat-verify-memory: nothing to verify 'unplanned' against: it has no remat.plan and no budget= is given}}
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #c16} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A plan that records an arena is checked against it too: this step as
// written (test/Transforms/remat-pipeline-arena.mlir) peaks at 832 bytes in
// the sum of live bytes, within the budget, but its values need an arena of
// 832 bytes besides the 64-byte argument.
#row = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
// expected-error @below {{the arena of 896 bytes (64 bytes of arguments and 832 of buffers at planned offsets) exceeds the budget of 832 bytes; the sum-of-live peak is 832 bytes}}
func.func @fragmenting(%x: tensor<1x16xf32>) -> tensor<f32> attributes {remat.plan = #remat.plan<solver = "checkpoint-all", mode = "min-compute", status = "optimal", budget = 832, predicted_peak = 832, baseline_peak = 832, cost = 544, baseline_cost = 544, arena = 832>} {
  %e0 = tensor.empty() : tensor<2x16xf32>
  // expected-note @below {{live there: 128 bytes of type 'tensor<2x16xf32>'}}
  %v0 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x16xf32>) outs(%e0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %e1 = tensor.empty() : tensor<5x16xf32>
  %v1 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x16xf32>) outs(%e1 : tensor<5x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<5x16xf32>
  %e2 = tensor.empty() : tensor<2x16xf32>
  %v2 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<5x16xf32>) outs(%e2 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %e3 = tensor.empty() : tensor<4x16xf32>
  // expected-note @below {{live there: 256 bytes of type 'tensor<4x16xf32>'}}
  %v3 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x16xf32>) outs(%e3 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e4 = tensor.empty() : tensor<4x16xf32>
  // expected-note @below {{the sum-of-live peak of 832 bytes is reached at this 'linalg.generic' (64 bytes of it are arguments)}}
  // expected-note @below {{live there: 256 bytes of type 'tensor<4x16xf32>'}}
  %v4 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v3 : tensor<4x16xf32>) outs(%e4 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e5 = tensor.empty() : tensor<1x16xf32>
  %v5 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<2x16xf32>) outs(%e5 : tensor<1x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %e6 = tensor.empty() : tensor<4x16xf32>
  %v6 = linalg.generic {indexing_maps = [#row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%v0, %v5 : tensor<2x16xf32>, tensor<1x16xf32>) outs(%e6 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e7 = tensor.empty() : tensor<4x16xf32>
  %v7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%v6 : tensor<4x16xf32>) outs(%e7 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction", "reduction"]} ins(%v4, %v7 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A hand-written cost below the result type's size is not trusted: this
// plan's 48 bytes would be "within budget" on the costs, but the program
// allocates 4 KiB for %a.
func.func @understated(%x: tensor<1024xf32>) -> tensor<1024xf32> attributes {remat.plan = #remat.plan<solver = "checkpoint-all", mode = "min-compute", status = "optimal", budget = 8192, predicted_peak = 16, baseline_peak = 16, cost = 4, baseline_cost = 4>} {
  // expected-error @below {{'math.tanh' op has a 'remat.cost' of 16 bytes for result #0 (tensor<1024xf32>), which takes 4096 bytes}}
  %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>} : tensor<1024xf32>
  return %a : tensor<1024xf32>
}
