// RUN: remat-opt %s --split-input-file --verify-diagnostics

// remat.offload / remat.wait / remat.prefetch (docs/Offload.md): a host copy
// is read by one prefetch in its block and nothing else; a wait names a value
// an earlier offload of its block copies, once; `remat.offloads` triples
// (a, w, p) never recompute the value between a and p.

func.func @host_copy_read_directly(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offload' op result is read by 'arith.addf'; only a 'remat.prefetch' may read a host copy}}
  %h = remat.offload %a : tensor<4xf32>
  %b = arith.addf %h, %h : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @host_copy_prefetched_twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{'remat.offload' op result must have exactly one use, a 'remat.prefetch' (a host copy is not read otherwise), found 2}}
  %h = remat.offload %a : tensor<4xf32>
  %b = remat.prefetch %h : tensor<4xf32>
  %c = remat.prefetch %h : tensor<4xf32>
  return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @host_copy_never_prefetched(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offload' op result must have exactly one use, a 'remat.prefetch' (a host copy is not read otherwise), found 0}}
  %h = remat.offload %a : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @prefetch_of_a_device_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.prefetch' op operand must be the host copy a 'remat.offload' made}}
  %b = remat.prefetch %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @prefetch_in_another_block(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  // expected-error @below {{'remat.offload' op result must be prefetched in its own block}}
  %h = remat.offload %a : tensor<4xf32>
  %r = scf.if %c -> tensor<4xf32> {
    %b = remat.prefetch %h : tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @types_differ(%a: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @below {{'remat.offload' op failed to verify that all of {input, result} have same type}}
  %h = "remat.offload"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  %b = remat.prefetch %h : tensor<4xf64>
  return %b : tensor<4xf64>
}

// -----

func.func @offloaded_and_recomputed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offloads' offloads the value after step 0 and prefetches it before step 3, but 'remat.steps' computes it again at step 2: an offloaded value is prefetched, not recomputed}}
  %a = math.tanh %x {remat.steps = array<i64: 0, 2>, remat.offloads = array<i64: 0, 1, 3>} : tensor<4xf32>
  %b = math.tanh %a {remat.steps = array<i64: 1, 3>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @offloaded_before_computed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offloads' offloads after step 0, before 'remat.steps' computes the op}}
  %a = math.tanh %x {remat.steps = array<i64: 1>, remat.offloads = array<i64: 0, 1, 3>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @not_triples(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offloads' must be a non-empty array<i64> of step triples (offload after, wait before, prefetch before)}}
  %a = math.tanh %x {remat.steps = array<i64: 0>, remat.offloads = array<i64: 0, 2>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @triples_out_of_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offloads' must hold triples (a, w, p) with a < w and a < p, each after the last}}
  %a = math.tanh %x {remat.steps = array<i64: 0>, remat.offloads = array<i64: 3, 4, 2>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @wait_before_the_offload(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.offloads' must hold triples (a, w, p) with a < w and a < p, each after the last}}
  %a = math.tanh %x {remat.steps = array<i64: 0>, remat.offloads = array<i64: 1, 1, 2>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @not_a_tensor(%x: f32) -> f32 {
  // expected-error @below {{'remat.offloads' is on an op without one ranked tensor result}}
  %a = math.tanh %x {remat.steps = array<i64: 0>, remat.offloads = array<i64: 0, 1, 2>} : f32
  return %a : f32
}

// -----

func.func @bad_host_copies(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.host_copies = array<i64: 16, -1, 32>} {
  // expected-error @above {{'remat.host_copies' must be array<i64: host peak bytes, copies, bytes moved>, none negative, got array<i64: 16, -1, 32>}}
  return %x : tensor<4xf32>
}

// -----

func.func @bad_pinned_host() {
  // expected-error @below {{'remat.pinned_host' must be a unit attribute, got true}}
  %h = memref.alloc() {remat.pinned_host = true} : memref<16xi8>
  memref.dealloc %h : memref<16xi8>
  return
}

// -----

func.func @wait_without_offload(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.wait' op operand must be a value that a 'remat.offload' earlier in the same block copies to the host}}
  remat.wait %a : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @wait_before_offload(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.wait' op operand must be a value that a 'remat.offload' earlier in the same block copies to the host}}
  remat.wait %a : tensor<4xf32>
  %h = remat.offload %a : tensor<4xf32>
  %b = remat.prefetch %h : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @waited_twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %h = remat.offload %a : tensor<4xf32>
  remat.wait %a : tensor<4xf32>
  // expected-error @below {{'remat.wait' op operand is waited for already: one 'remat.wait' per offloaded value}}
  remat.wait %a : tensor<4xf32>
  %b = remat.prefetch %h : tensor<4xf32>
  return %b : tensor<4xf32>
}
