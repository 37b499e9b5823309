// RUN: remat-opt %s --remat-lower-host-memory --verify-diagnostics

// A dynamic host copy of a function without a size hint: its bytes are not
// known.
func.func @dynamic_without_hint(%a: memref<?x4xf32>, %n: index) {
  // expected-error @below {{host copy of unknown size: a dynamic shape needs the function's 'remat.dynamic_size_hint' (remat-annotate-costs{dynamic-size-hint=N})}}
  %h = memref.alloc(%n) : memref<?x4xf32, 1>
  memref.copy %a, %h : memref<?x4xf32> to memref<?x4xf32, 1>
  memref.copy %h, %a : memref<?x4xf32, 1> to memref<?x4xf32>
  memref.dealloc %h : memref<?x4xf32, 1>
  return
}
