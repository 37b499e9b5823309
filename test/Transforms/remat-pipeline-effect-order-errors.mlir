// RUN: remat-opt %s --remat-pipeline="budget=65000" --verify-diagnostics -o /dev/null

// Below the smallest budget that keeps the calls in order the pipeline says
// so before planning (it used to call a reordering plan optimal, which
// --remat-rematerialize then refused): @k1 must run before @k2, so %a is
// live at %big's peak of 16384 + 16384 + 16 + 32768 = 65,552 bytes.
#id = affine_map<(d0) -> (d0)>
func.func private @k1(tensor<4096xf32>) -> tensor<4096xf32>
func.func private @k2(tensor<4096xf32>) -> tensor<4xf32>
// expected-error @below {{budget of 65000 bytes is infeasible for solver 'auto' (infeasible: no solver found a schedule within the constraints); the smallest feasible budget is 65568 bytes (100.0% of the checkpoint-all peak of 65552 bytes, its arena included)}}
func.func @two_calls(%x: tensor<4096xf32>) -> (tensor<f32>, tensor<4096xf32>) {
  // expected-note @below {{live there: 16384 bytes of type 'tensor<4096xf32>', result of 'func.call'}}
  %a = func.call @k1(%x) {remat.cost = #remat.cost<bytes = [16384], flops = 1000>} : (tensor<4096xf32>) -> tensor<4096xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'func.call'}}
  %b = func.call @k2(%x) {remat.cost = #remat.cost<bytes = [16], flops = 1000>} : (tensor<4096xf32>) -> tensor<4xf32>
  %eb = tensor.empty() : tensor<8192xf32>
  // expected-note @below {{the checkpoint-all peak of 65552 bytes is reached at this 'linalg.generic' (16384 bytes of it are arguments)}}
  // expected-note @below {{live there: 32768 bytes of type 'tensor<8192xf32>', result of 'linalg.generic'}}
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
