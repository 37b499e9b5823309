// Custom ops of another stack (here in generic form, parsed with
// --allow-unregistered-dialect): the pipeline refuses to guess their cost
// unless allow-unknown is given, which passes down to remat-annotate-costs
// (bytes from the result types, 0 FLOPs, a warning at the op).
// RUN: remat-opt %s --allow-unregistered-dialect \
// RUN:   --remat-pipeline="allow-unknown solver=checkpoint-all" \
// RUN:   --verify-diagnostics=only-expected | FileCheck %s
// RUN: not remat-opt %s --allow-unregistered-dialect \
// RUN:   --remat-pipeline="solver=checkpoint-all" --mlir-print-op-on-diagnostic=false 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRICT

// STRICT: remat-pipeline-allow-unknown.mlir:[[# @LINE + 11]]:8: error: 'mydialect.gelu' op is not supported by the cost model (use remat-annotate-costs{allow-unknown} to cost it from its result types with 0 FLOPs, or attach a remat.cost by hand)

// CHECK-LABEL: func.func @step
// CHECK:       "mydialect.gelu"({{.*}}) {remat.cost = #remat.cost<bytes = [64], flops = 0>, remat.phase = #remat.phase<forward>}
// CHECK:       return
func.func @step(%x: tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %h = math.tanh %x : tensor<16xf32>
  // expected-warning @below {{'mydialect.gelu' is not supported by the cost model; assuming bytes from its result types and 0 FLOPs}}
  %g = "mydialect.gelu"(%h) : (tensor<16xf32>) -> tensor<16xf32>
  %loss = linalg.reduce ins(%g : tensor<16xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %grad = arith.mulf %h, %g : tensor<16xf32>
  return %loss, %grad : tensor<f32>, tensor<16xf32>
}
