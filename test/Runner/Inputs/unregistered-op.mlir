// A step holding custom ops of another stack, in generic form: the runners
// refuse each kind once, at its first use (remat-run-entry-errors.mlir).
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %0 = "mydialect.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "mydialect.gelu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = arith.addf %1, %c : tensor<4xf32>
  %3 = "mydialect.layer_norm"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
