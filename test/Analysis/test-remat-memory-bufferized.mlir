// RUN: remat-opt %s --split-input-file --test-remat-memory=per-op --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --split-input-file --test-remat-memory=count-alignment-padding -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAD

// Liveness and peak memory of bufferized IR: an allocation is live from its
// op to the op before the one that certainly frees it, or to the end. Views
// alias their base and own nothing; sizes are exact (no alignment padding)
// unless `count-alignment-padding` adds each alloc's `alignment`.

// Resident: %arg0 = 16 x f32 = 64 bytes.
//   #0 %a = 64 x f32 = 256                     64 + 256 = 320
//   #1 subview of %a (view)                          320
//   #2 %b = 8 x f64 = 64                  64 + 256 + 64 = 384  <- peak
//   #3 memref.copy                                   384
//   #4 dealloc of the subview frees %a          64 + 64 = 128
//   #5 alloca 4 x i1 (a byte each)          64 + 64 + 4 = 132
//   #6 dealloc %b                                64 + 4 = 68
//   #7 return (the alloca lives to the end)          68
// Total: 64 + 256 + 64 + 4 = 388. With padding, %a (alignment 64) counts
// 256 + 64 = 320: peak 64 + 320 + 64 = 448.
// PAD: peak = 448 bytes at #2 memref.alloc; resident = 64 bytes; total = 452 bytes
// expected-remark @below {{peak = 384 bytes at #2 memref.alloc; resident = 64 bytes; total = 388 bytes}}
// expected-remark @below {{live at peak: %alloc (256), %arg0 (64), %alloc_0 (64)}}
func.func @buffers(%arg0: memref<16xf32>) {
  // expected-remark @below {{live = 320 bytes}}
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  // expected-remark @below {{live = 320 bytes}}
  %v = memref.subview %a[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
  // expected-remark @below {{live = 384 bytes}}
  %b = memref.alloc() : memref<8xf64>
  // expected-remark @below {{live = 384 bytes}}
  memref.copy %arg0, %v : memref<16xf32> to memref<16xf32, strided<[1]>>
  // expected-remark @below {{live = 128 bytes}}
  memref.dealloc %v : memref<16xf32, strided<[1]>>
  // expected-remark @below {{live = 132 bytes}}
  %c = memref.alloca() : memref<4xi1>
  // expected-remark @below {{live = 68 bytes}}
  memref.dealloc %b : memref<8xf64>
  // expected-remark @below {{live = 68 bytes}}
  return
}

// -----

// Nested regions count at their top-level op, once: an allocation freed in
// the loop body that made it is a transient of the loop (not multiplied by
// the trip count); so is an alloca in a nested allocation scope. An
// allocation never freed lives to the end. No shaped argument: resident 0.
//   #0, #1 arith.constant                      0
//   #2 %a = 16 x f32 = 64                      64
//   #3 scf.for, transient 8 x f32 = 32    64 + 32 = 96
//   #4 alloca_scope, transient 200 x i8  64 + 200 = 264  <- peak
//   #5 %b = 4 x f32 = 16                  64 + 16 = 80
//   #6 return (%a, %b never freed)                 80
// PAD: peak = 264 bytes at #4 memref.alloca_scope; resident = 0 bytes; total = 312 bytes
// expected-remark @below {{peak = 264 bytes at #4 memref.alloca_scope; resident = 0 bytes; total = 312 bytes}}
// expected-remark @below {{live at peak: %alloca (200), %alloc (64)}}
func.func @nested(%n: index) {
  // expected-remark @below {{live = 0 bytes}}
  %c0 = arith.constant 0 : index
  // expected-remark @below {{live = 0 bytes}}
  %c1 = arith.constant 1 : index
  // expected-remark @below {{live = 64 bytes}}
  %a = memref.alloc() : memref<16xf32>
  // expected-remark @below {{live = 96 bytes}}
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<8xf32>
    memref.dealloc %t : memref<8xf32>
  }
  // expected-remark @below {{live = 264 bytes}}
  memref.alloca_scope {
    %s = memref.alloca() : memref<200xi8>
  }
  // expected-remark @below {{live = 80 bytes}}
  %b = memref.alloc() : memref<4xf32>
  // expected-remark @below {{live = 80 bytes}}
  return
}

// -----

// Conditional deallocation (the ownership-based deallocation pipeline):
// `bufferization.dealloc` frees a memref when its condition is a constant
// true, and a dealloc under `scf.if %true` is certain; an unknown condition
// is assumed not to free (the buffer stays live to the end: an upper bound).
//   #0, #1 arith.constant                       0
//   #2 %a = 100                               100
//   #3 %b = 10                          100 + 10 = 110
//   #4 %c = 1                       100 + 10 + 1 = 111  <- peak
//   #5 dealloc (%a if true, %b if %cond)   10 + 1 = 11
//   #6 scf.if %true { dealloc %c }             10
//   #7 scf.if %cond { dealloc %b }: unknown    10
//   #8 scf.if %false { dealloc %b }: never     10
//   #9 return                                  10
// PAD: peak = 111 bytes at #4 memref.alloc; resident = 0 bytes; total = 111 bytes
// expected-remark @below {{peak = 111 bytes at #4 memref.alloc; resident = 0 bytes; total = 111 bytes}}
// expected-remark @below {{live at peak: %alloc (100), %alloc_0 (10), %alloc_1 (1)}}
func.func @conditions(%cond: i1) {
  // expected-remark @below {{live = 0 bytes}}
  %true = arith.constant true
  // expected-remark @below {{live = 0 bytes}}
  %false = arith.constant false
  // expected-remark @below {{live = 100 bytes}}
  %a = memref.alloc() : memref<100xi8>
  // expected-remark @below {{live = 110 bytes}}
  %b = memref.alloc() : memref<10xi8>
  // expected-remark @below {{live = 111 bytes}}
  %c = memref.alloc() : memref<1xi8>
  // expected-remark @below {{live = 11 bytes}}
  bufferization.dealloc (%a, %b : memref<100xi8>, memref<10xi8>) if (%true, %cond)
  // expected-remark @below {{live = 10 bytes}}
  scf.if %true {
    memref.dealloc %c : memref<1xi8>
  }
  // expected-remark @below {{live = 10 bytes}}
  scf.if %cond {
    memref.dealloc %b : memref<10xi8>
  }
  // expected-remark @below {{live = 10 bytes}}
  scf.if %false {
    memref.dealloc %b : memref<10xi8>
  }
  // expected-remark @below {{live = 10 bytes}}
  return
}

// -----

// A dealloc of a value that may come from several allocations frees none of
// them (conservative): %r is %b or %a. %b, allocated inside the scf.if,
// counts from the scf.if on.
//   #0 %a = 10                 10
//   #1 scf.if allocates %b = 20    10 + 20 = 30  <- peak
//   #2 dealloc %r: ambiguous       30
//   #3 return                      30
// PAD: peak = 30 bytes at #1 scf.if; resident = 0 bytes; total = 30 bytes
// expected-remark @below {{peak = 30 bytes at #1 scf.if; resident = 0 bytes; total = 30 bytes}}
// expected-remark @below {{live at peak: %alloc_0 (20), %alloc (10)}}
func.func @ambiguous(%cond: i1) {
  // expected-remark @below {{live = 10 bytes}}
  %a = memref.alloc() : memref<10xi8>
  // expected-remark @below {{live = 30 bytes}}
  %r = scf.if %cond -> (memref<?xi8>) {
    %b = memref.alloc() : memref<20xi8>
    %bc = memref.cast %b : memref<20xi8> to memref<?xi8>
    scf.yield %bc : memref<?xi8>
  } else {
    %ac = memref.cast %a : memref<10xi8> to memref<?xi8>
    scf.yield %ac : memref<?xi8>
  }
  // expected-remark @below {{live = 30 bytes}}
  memref.dealloc %r : memref<?xi8>
  // expected-remark @below {{live = 30 bytes}}
  return
}

// -----

// A dynamically shaped allocation is sized by a `remat.cost` size hint.
//   #0 %a = 1000 (hint)       1000  <- peak
//   #1 dealloc %a                0
//   #2 return                    0
// PAD: peak = 1000 bytes at #0 memref.alloc; resident = 0 bytes; total = 1000 bytes
// expected-remark @below {{peak = 1000 bytes at #0 memref.alloc; resident = 0 bytes; total = 1000 bytes}}
// expected-remark @below {{live at peak: %alloc (1000)}}
func.func @hint(%n: index) {
  // expected-remark @below {{live = 1000 bytes}}
  %a = memref.alloc(%n) {remat.cost = #remat.cost<bytes = [1000], flops = 0>} : memref<?xf32>
  // expected-remark @below {{live = 0 bytes}}
  memref.dealloc %a : memref<?xf32>
  // expected-remark @below {{live = 0 bytes}}
  return
}

// -----

// Frees are traced back through views to their allocation: the base buffer
// of extract_strided_metadata frees %a, a reinterpret_cast of the clone
// frees the clone. bufferization.clone allocates (4x4 x f32 = 64).
//   #0 %a = 64                   64
//   #1 extract_strided_metadata  64
//   #2 clone = 64           64 + 64 = 128  <- peak
//   #3 dealloc base (%a)         64
//   #4 reinterpret_cast          64
//   #5 dealloc of the cast        0
//   #6 return                     0
// PAD: peak = 128 bytes at #2 bufferization.clone; resident = 0 bytes; total = 128 bytes
// expected-remark @below {{peak = 128 bytes at #2 bufferization.clone; resident = 0 bytes; total = 128 bytes}}
// expected-remark @below {{live at peak: %alloc (64), %0 (64)}}
func.func @traced() {
  // expected-remark @below {{live = 64 bytes}}
  %a = memref.alloc() : memref<4x4xf32>
  // expected-remark @below {{live = 64 bytes}}
  %base, %off, %sz:2, %st:2 = memref.extract_strided_metadata %a
      : memref<4x4xf32> -> memref<f32>, index, index, index, index, index
  // expected-remark @below {{live = 128 bytes}}
  %c = bufferization.clone %a : memref<4x4xf32> to memref<4x4xf32>
  // expected-remark @below {{live = 64 bytes}}
  memref.dealloc %base : memref<f32>
  // expected-remark @below {{live = 64 bytes}}
  %r = memref.reinterpret_cast %c to offset: [0], sizes: [16], strides: [1]
      : memref<4x4xf32> to memref<16xf32>
  // expected-remark @below {{live = 0 bytes}}
  memref.dealloc %r : memref<16xf32>
  // expected-remark @below {{live = 0 bytes}}
  return
}
