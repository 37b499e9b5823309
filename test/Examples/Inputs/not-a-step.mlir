// Inputs for gen-errors.test: functions that break the training-step convention.
func.func @no_loss(%a: tensor<4xf32>) -> (tensor<4xf32>) {
  return %a : tensor<4xf32>
}
func.func @wrong_update(%a: tensor<4xf32>) -> (tensor<f32>, tensor<5xf32>) {
  %l = tensor.empty() : tensor<f32>
  %u = tensor.empty() : tensor<5xf32>
  return %l, %u : tensor<f32>, tensor<5xf32>
}
func.func @dynamic(%a: tensor<?xf32>) -> (tensor<f32>) {
  %l = tensor.empty() : tensor<f32>
  return %l : tensor<f32>
}
