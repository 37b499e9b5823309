// RUN: remat-opt %s --split-input-file --remat-host-alloc-to-gpu --verify-diagnostics

// Buffers become device memory: a host read would dereference a device
// pointer.
func.func @host_load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' op reads a buffer on the host, but remat-host-alloc-to-gpu places every buffer in device memory; only linalg ops, memref.copy and GPU ops may access buffers}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func @host_store(%v: f32) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  // expected-error @below {{'memref.store' op writes a buffer on the host}}
  memref.store %v, %a[%c0] : memref<4xf32>
  return %a : memref<4xf32>
}

// -----

// Every offending op is reported, and the function is left unchanged.
func.func @two_errors(%x: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' op reads a buffer on the host}}
  %w = memref.load %x[%c0] : memref<4xf32>
  // expected-error @below {{'memref.store' op writes a buffer on the host}}
  memref.store %v, %x[%c0] : memref<4xf32>
  return
}

// -----

func.func @stack() {
  // expected-error @below {{'memref.alloca' op is a host stack buffer; remat-host-alloc-to-gpu supports heap buffers only (bufferize with memref.alloc)}}
  %a = memref.alloca() : memref<4xf32>
  return
}

// -----

func.func @realloc(%x: memref<4xf32>) -> memref<8xf32> {
  // expected-error @below {{'memref.realloc' op cannot resize a device buffer}}
  %r = memref.realloc %x : memref<4xf32> to memref<8xf32>
  return %r : memref<8xf32>
}

// -----

// Ownership-based deallocation must be lowered first: its helper code reads
// and frees buffers on the host.
func.func @pending_dealloc(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  // expected-error @below {{'bufferization.dealloc' op still holds buffers; run convert-bufferization-to-memref before remat-host-alloc-to-gpu}}
  bufferization.dealloc (%a : memref<4xf32>) if (%c)
  return
}

// -----

memref.global "private" constant @strided : memref<2xf32, strided<[2]>> = dense<[1.0, 2.0]>

func.func @strided_global() {
  // expected-error @below {{'memref.get_global' op reads a global with a non-identity layout, which cannot be uploaded with gpu.memcpy}}
  %g = memref.get_global @strided : memref<2xf32, strided<[2]>>
  return
}
