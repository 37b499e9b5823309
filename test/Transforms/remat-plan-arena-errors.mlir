// RUN: remat-opt %s --split-input-file --remat-plan-arena=remarks=false --verify-diagnostics
// RUN: not remat-opt %s --split-input-file --remat-plan-arena=alignment=24 2>&1 | FileCheck %s --check-prefix=ALIGN

// ALIGN: error: remat-plan-arena: alignment=24 is not a power of two

// A dynamic size in a function that records no dynamic-size hint: nothing
// bounds the buffer, so the arena cannot hold it.
func.func @no_hint(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @below {{size %dim of dimension 0 is dynamic and 'no_hint' records no dynamic-size hint, so the arena cannot bound this buffer (plan the step with dynamic-size-hint=N, or lower it with arena=false)}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// With 32-bit indices no offset may reach 2^31: two buffers of 1.5 GiB live
// together need an arena of 3 GiB.
module attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>} {
  // expected-error @below {{cannot plan the arena of 'too_large_for_index': the arena would exceed 2147483647 bytes (the most its 32-bit index type addresses)}}
  func.func @too_large_for_index() {
    %a = memref.alloc() : memref<402653184xf32>
    %b = memref.alloc() : memref<402653184xf32>
    linalg.copy ins(%a : memref<402653184xf32>) outs(%b : memref<402653184xf32>)
    memref.dealloc %a : memref<402653184xf32>
    memref.dealloc %b : memref<402653184xf32>
    return
  }
}

// -----

// Three buffers of 2^61 bytes: more than 2^62 bytes in all, which the byte
// counts of the memory model cannot hold. An error, never a wrapped size.
func.func @too_large() {
  %a = memref.alloc() : memref<2305843009213693952xi8>
  %b = memref.alloc() : memref<2305843009213693952xi8>
  // expected-error @below {{'memref.alloc' op brings the sizes of the function's buffers to more than 2^62 bytes (4 EiB): sizes this large cannot be represented}}
  %c = memref.alloc() : memref<2305843009213693952xi8>
  linalg.copy ins(%a : memref<2305843009213693952xi8>) outs(%b : memref<2305843009213693952xi8>)
  linalg.copy ins(%b : memref<2305843009213693952xi8>) outs(%c : memref<2305843009213693952xi8>)
  return
}
