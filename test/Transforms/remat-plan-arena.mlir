// RUN: remat-opt %s --split-input-file --remat-plan-arena --verify-diagnostics | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-plan-arena="results-in-arena=false remarks=false" | FileCheck %s --check-prefix=OWN
// RUN: remat-opt %s --split-input-file --remat-plan-arena="alignment=64 remarks=false" | FileCheck %s --check-prefix=A64

// A chain: a and b (64 bytes each) are live together while b is computed;
// c reuses a's place once a is freed. Greedy by size (all 64): a at 0, b
// at 64, c at 0. The lower bound is 128 (a + b), so the plan is optimal.
// c is returned: it lives in the arena, which the caller frees once, so
// the arena is not freed here; the deallocations of a and b are gone.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[X:.*]]: memref<16xf32>) -> memref<16xf32> attributes {remat.arena_bytes = 128 : i64}
// CHECK:         %[[ARENA:.*]] = memref.alloc() : memref<128xi8>
// CHECK:         %[[A:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK:         linalg.add {{.*}} outs(%[[A]] :
// CHECK:         %[[B:.*]] = memref.view %[[ARENA]][%c64][] : memref<128xi8> to memref<16xf32>
// CHECK:         linalg.mul {{.*}} outs(%[[B]] :
// CHECK-NOT:     memref.dealloc
// CHECK:         %[[C:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK:         linalg.sub {{.*}} outs(%[[C]] :
// CHECK-NOT:     memref.dealloc
// CHECK:         return %[[C]]

// With results-in-arena=false, c keeps its own allocation and the arena
// (a and b, 128 bytes) is freed before the return.
// OWN-LABEL: func.func @chain(
// OWN:         %[[ARENA:.*]] = memref.alloc() : memref<128xi8>
// OWN:         %[[C:.*]] = memref.alloc() : memref<16xf32>
// OWN:         memref.dealloc %[[ARENA]]
// OWN-NEXT:    return %[[C]]

// With 64-byte offsets nothing changes here (every buffer is 64 bytes),
// but the arena asks malloc for the alignment.
// A64-LABEL: func.func @chain(
// A64:         memref.alloc() {alignment = 64 : i64} : memref<128xi8>

// expected-remark @below {{arena of 128 bytes for 3 buffer(s) of 'chain', best-fit-by-size, optimal (the most they hold at once: 128 bytes); the results live in the arena, which the caller frees once}}
func.func @chain(%x: memref<16xf32>) -> memref<16xf32> {
  %a = memref.alloc() : memref<16xf32>
  linalg.add ins(%x, %x : memref<16xf32>, memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.mul ins(%a, %a : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>)
  memref.dealloc %a : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  linalg.sub ins(%b, %x : memref<16xf32>, memref<16xf32>) outs(%c : memref<16xf32>)
  memref.dealloc %b : memref<16xf32>
  return %c : memref<16xf32>
}

// -----

// Nothing returned: the arena is freed before the return. The 12-byte and
// 4-byte buffers take 16 bytes each at the default 16-byte alignment and
// are live together: 32 bytes. With 64-byte offsets: 128.

// CHECK-LABEL: func.func @temporaries(
// CHECK-SAME:      remat.arena_bytes = 32 : i64
// CHECK:         %[[ARENA:.*]] = memref.alloc() : memref<32xi8>
// CHECK:         memref.view %[[ARENA]][%c0{{.*}}][] : memref<32xi8> to memref<3xf32>
// CHECK:         memref.view %[[ARENA]][%c16][] : memref<32xi8> to memref<f32>
// CHECK:         memref.load
// CHECK-NEXT:    memref.dealloc %[[ARENA]] : memref<32xi8>
// CHECK-NEXT:    return
// A64-LABEL: func.func @temporaries(
// A64-SAME:      remat.arena_bytes = 128 : i64

// expected-remark @below {{arena of 32 bytes for 2 buffer(s) of 'temporaries', best-fit-by-size, optimal (the most they hold at once: 32 bytes)}}
func.func @temporaries(%x: memref<3xf32>) -> f32 {
  %a = memref.alloc() : memref<3xf32>
  linalg.add ins(%x, %x : memref<3xf32>, memref<3xf32>) outs(%a : memref<3xf32>)
  %s = memref.alloc() : memref<f32>
  linalg.reduce ins(%a : memref<3xf32>) outs(%s : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  memref.dealloc %a : memref<3xf32>
  %v = memref.load %s[] : memref<f32>
  memref.dealloc %s : memref<f32>
  return %v : f32
}

// -----

// The arena a remat.plan promised (remat.planned_arena, arguments included)
// is what the planner searches on to meet; one it cannot meet (40 bytes
// leave 28 after the 12 of %x, below the 32 the buffers hold at once) is
// reported.

// CHECK-LABEL: func.func @over_the_plan(
// CHECK-SAME:      attributes {remat.arena_bytes = 32 : i64} {

// expected-remark @below {{arena of 32 bytes for 2 buffer(s) of 'over_the_plan', best-fit-by-size, optimal (the most they hold at once: 32 bytes); 4 bytes above the 28 its remat.planned_arena leaves after the arguments}}
func.func @over_the_plan(%x: memref<3xf32>) -> f32 attributes {remat.planned_arena = 40 : i64} {
  %a = memref.alloc() : memref<3xf32>
  linalg.add ins(%x, %x : memref<3xf32>, memref<3xf32>) outs(%a : memref<3xf32>)
  %s = memref.alloc() : memref<f32>
  linalg.reduce ins(%a : memref<3xf32>) outs(%s : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  memref.dealloc %a : memref<3xf32>
  %v = memref.load %s[] : memref<f32>
  memref.dealloc %s : memref<f32>
  return %v : f32
}

// -----

// A caller in the module: @step returns two buffers of its arena; @main's
// two deallocations (each freeing one result through its base buffer, as
// the deallocation lowering writes them) become one deallocation of the
// arena after the last of them.

// CHECK-LABEL: func.func @step(
// CHECK-SAME:      remat.arena_bytes = 128 : i64
// CHECK:         memref.alloc() : memref<128xi8>
// CHECK-NOT:     memref.dealloc
// CHECK:         return
// CHECK-LABEL: func.func @main(
// CHECK:         %[[R:.*]]:2 = call @step(
// CHECK-NOT:     memref.dealloc
// CHECK:         scf.if
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[R]]#0 : memref<16xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         return
// Without results in the arena, @main frees each result as before.
// OWN-LABEL: func.func @main(
// OWN:         memref.dealloc %{{.*}} : memref<16xf32>
// OWN:         memref.dealloc %{{.*}} : memref<f32>

// expected-remark @below {{arena of 128 bytes for 2 buffer(s) of 'step'}}
func.func @step(%x: memref<16xf32>) -> (memref<16xf32>, memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.add ins(%x, %x : memref<16xf32>, memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.mul ins(%a, %a : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>)
  return %a, %b : memref<16xf32>, memref<16xf32>
}

// expected-remark @below {{arena of 0 bytes: no buffer of 'main' to place}}
func.func @main(%x: memref<16xf32>, %cond: i1) {
  %r:2 = call @step(%x) : (memref<16xf32>) -> (memref<16xf32>, memref<16xf32>)
  memref.dealloc %r#0 : memref<16xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %r#1
      : memref<16xf32> -> memref<f32>, index, index, index
  scf.if %cond {
    memref.dealloc %base : memref<f32>
  }
  return
}

// -----

// Buffers that keep their own allocation, each named in a remark: one
// allocated in a loop (each iteration would reuse its offset while the
// previous one may live on), one freed where another buffer may be freed
// instead, and one whose dynamic size no guard bounds. A buffer inside an
// scf.if runs at most once: it is planned (and its deallocation goes).

// CHECK-LABEL: func.func @left_out(
// CHECK-SAME:      remat.arena_bytes = 64 : i64
// CHECK:         %[[ARENA:.*]] = memref.alloc() : memref<64xi8>
// CHECK:         scf.for
// CHECK:           memref.alloc() : memref<4xf32>
// CHECK:         memref.alloc() : memref<8xf32>
// CHECK:         arith.select
// CHECK:         memref.dealloc
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         scf.if
// CHECK:           memref.view %[[ARENA]]
// CHECK-NOT:       memref.dealloc
// CHECK:         }
// CHECK:         memref.dealloc %[[ARENA]]

// expected-remark @below {{arena of 64 bytes for 1 buffer(s) of 'left_out', best-fit-by-size, optimal (the most they hold at once: 64 bytes); 3 buffer(s) keep their own allocation}}
func.func @left_out(%x: memref<8xf32>, %n: index, %cond: i1) attributes {remat.dynamic_size_hint = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark @below {{keeps its own allocation: it is allocated inside 'scf.for', which may run it more than once}}
    %t = memref.alloc() : memref<4xf32>
    memref.dealloc %t : memref<4xf32>
  }
  // expected-remark @below {{keeps its own allocation: it may be freed by 'memref.dealloc' together with another buffer}}
  %p = memref.alloc() : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%p : memref<8xf32>)
  %either = arith.select %cond, %p, %x : memref<8xf32>
  memref.dealloc %either : memref<8xf32>
  // expected-remark @below {{keeps its own allocation: its dynamic size %arg1 is not bounded by the dynamic-size hint}}
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  scf.if %cond {
    %q = memref.alloc() : memref<16xf32>
    linalg.fill ins(%zero : f32) outs(%q : memref<16xf32>)
    memref.dealloc %q : memref<16xf32>
  }
  return
}

// -----

// A dynamic size the dynamic-size guard bounds (dimension 0 of %x is at
// most 8): the view keeps the dynamic size, its place is sized for 8 rows
// (8 x 4 x f32 = 128 bytes).

// CHECK-LABEL: func.func @bounded(
// CHECK-SAME:      remat.arena_bytes = 128 : i64
// CHECK:         %[[ARENA:.*]] = memref.alloc() : memref<128xi8>
// CHECK:         %[[N:.*]] = memref.dim
// CHECK:         memref.view %[[ARENA]][%c0{{.*}}][%[[N]]] : memref<128xi8> to memref<?x4xf32>

// expected-remark @below {{arena of 128 bytes for 1 buffer(s) of 'bounded'}}
func.func @bounded(%x: memref<?x4xf32>) -> memref<?x4xf32> attributes {remat.dynamic_size_hint = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %ok = arith.cmpi ule, %n, %c8 : index
  cf.assert %ok, "dimension 0 of argument #0 exceeds 8"
  %y = memref.alloc(%n) : memref<?x4xf32>
  linalg.copy ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>)
  return %y : memref<?x4xf32>
}

// -----

// A body of several blocks is left alone.

// CHECK-LABEL: func.func @blocks(
// CHECK-NOT:     remat.arena_bytes
// CHECK:         memref.alloc() : memref<4xf32>

// expected-remark @below {{arena not planned: 'blocks' has 2 blocks; its buffers keep their own allocations}}
func.func @blocks(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  cf.br ^bb1
^bb1:
  memref.dealloc %a : memref<4xf32>
  return
}
