// RUN: remat-opt %s --split-input-file --allow-unregistered-dialect --remat-annotate-costs --verify-diagnostics

// A call is opaque to the cost model: the error says to inline it first.

func.func private @callee(tensor<4xf32>) -> tensor<4xf32>

func.func @unsupported_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op calls a function the cost model cannot see into; inline it first (--inline; --remat-pipeline does), or attach a remat.cost by hand}}
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Every unsupported op is reported, not only the first. An scf.for is costed
// from its body: a body op the model does not know makes the loop unknown.
func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>
func.func @unsupported_loop(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{'scf.for' op is not supported by the cost model}}
  %0 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    // expected-error @below {{'func.call' op calls a function the cost model cannot see into}}
    %1 = func.call @opaque(%acc) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %1 : tensor<4xf32>
  }
  // The trip count of a while loop is unknown.
  // expected-error @below {{'scf.while' op is not supported by the cost model}}
  %2 = scf.while (%arg = %0) : (tensor<4xf32>) -> tensor<4xf32> {
    %false = arith.constant false
    scf.condition(%false) %arg : tensor<4xf32>
  } do {
  ^bb0(%arg: tensor<4xf32>):
    scf.yield %arg : tensor<4xf32>
  }
  // A loop with a dynamic trip count needs the size hint.
  // expected-error @below {{'scf.for' op has a dynamic trip count; its cost needs static shapes}}
  %3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %2) -> (tensor<4xf32>) {
    %4 = arith.addf %acc, %acc : tensor<4xf32>
    scf.yield %4 : tensor<4xf32>
  }
  return %3 : tensor<4xf32>
}

// -----

func.func @dynamic_result(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{'arith.addf' op has a dynamic dimension 0 in result #0 ('tensor<?x4xf32>'); its cost needs static shapes (set a size hint for dynamic dimensions with remat-annotate-costs{dynamic-size-hint=N})}}
  %0 = arith.addf %x, %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// The result is static, but the reduction loop of the matmul is not.
func.func @dynamic_loop(%a: tensor<4x?xf32>, %b: tensor<?x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'linalg.matmul' op has a dynamic range of loop d2; its cost needs static shapes}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x?xf32>, tensor<?x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @below {{'arith.addf' op has an unranked result #0 ('tensor<*xf32>'); the cost model needs ranked shapes}}
  %0 = arith.addf %x, %x : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @overflow(%x: tensor<1000000000x1000000000x100xf32>) -> tensor<1000000000x1000000000x100xf32> {
  // 1e9 * 1e9 * 100 = 1e20 elements > 2^63 - 1.
  // expected-error @below {{'arith.negf' op has a cost that overflows a 64-bit integer}}
  %0 = arith.negf %x : tensor<1000000000x1000000000x100xf32>
  return %0 : tensor<1000000000x1000000000x100xf32>
}

// -----

func.func @unknown_element_type(%p: !llvm.ptr) -> tensor<1x!llvm.ptr> {
  // expected-error @below {{'tensor.from_elements' op has result #0 of element type '!llvm.ptr' whose size in bytes the cost model does not know}}
  %0 = tensor.from_elements %p : tensor<1x!llvm.ptr>
  return %0 : tensor<1x!llvm.ptr>
}

// -----

// An op of an unregistered dialect (no dialect object at all) is reported
// like any unknown op.
func.func @unregistered(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'mydialect.frob' op is not supported by the cost model}}
  %a = "mydialect.frob"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A hand-written cost may overstate a result but never understate it: 16
// bytes for a tensor<4x4xf32> (64 bytes) would make every peak, budget and
// arena built on it too small. Views and empty tensors own nothing, so their
// 0 is fine.
func.func @understated_cost(%x: tensor<4x4xf32>) -> tensor<16xf32> {
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4x4xf32>
  // expected-error @below {{'linalg.copy' op has a 'remat.cost' of 16 bytes for result #0 (tensor<4x4xf32>), which takes 64 bytes: a cost may overstate a statically shaped result, never understate it}}
  %c = linalg.copy {remat.cost = #remat.cost<bytes = [16], flops = 0>} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v = tensor.collapse_shape %c [[0, 1]] {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4x4xf32> into tensor<16xf32>
  return %v : tensor<16xf32>
}
