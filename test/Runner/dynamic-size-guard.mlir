// A step planned for a dynamic batch with dynamic-size-hint=8 checks at run
// time that the batch it gets is no larger: run through the CPU lowering,
// a batch of 8 runs, a batch of 16 stops with the guard's message (printed
// by puts: stdbuf keeps it from being lost in the buffer at abort).

// RUN: sed 's/ROWS/8/' %s | remat-opt --remat-pipeline="dynamic-size-hint=8 functions=dynamic_batch inline=false" 2>/dev/null \
// RUN:   | remat-opt --remat-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%remat_lib_dir/libremat_alloc_tracker.so
// RUN: sed 's/ROWS/16/' %s | remat-opt --remat-pipeline="dynamic-size-hint=8 functions=dynamic_batch inline=false" 2>/dev/null \
// RUN:   | remat-opt --remat-lower-to-cpu \
// RUN:   | not --crash stdbuf -o0 mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%remat_lib_dir/libremat_alloc_tracker.so 2>/dev/null \
// RUN:   | FileCheck %s
// CHECK: dimension 0 of argument #0 exceeds 8, the dynamic-size hint the rematerialization plan assumed

func.func @dynamic_batch(%x: tensor<?x4xf32>) -> (tensor<f32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %init = tensor.empty(%n) : tensor<?x4xf32>
  %a = linalg.exp ins(%x : tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%a : tensor<?x4xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %init2 = tensor.empty(%n) : tensor<?x4xf32>
  %g = linalg.mul ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%init2 : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %loss, %g : tensor<f32>, tensor<?x4xf32>
}

func.func @run(%rows: index) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %x = linalg.fill ins(%one : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %loss, %g = func.call @dynamic_batch(%x) : (tensor<?x4xf32>) -> (tensor<f32>, tensor<?x4xf32>)
  return
}

func.func @main() {
  %n = arith.constant ROWS : index
  func.call @run(%n) : (index) -> ()
  return
}
