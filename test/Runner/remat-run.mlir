// remat-run: inputs from the documented formula, result checksums, measured
// peak heap bytes. Every expected number is computed by hand below.
//
// Input formula (docs/Running.md): element i (row-major) of argument k is
//   f32/f64: sin(0.1*i + k) * 0.5        i32/i64: (i + k) mod 4
// FNV-1a 64 of a byte string: h = 0xcbf29ce484222325; for each byte b:
//   h = (h xor b) * 0x100000001b3 mod 2^64 (evaluated for the byte strings
//   given in the comments).

// RUN: remat-run %s --entry=matmul_i32 --print-results | FileCheck %s --check-prefix=MATMUL
// RUN: remat-run %s --entry=elementwise --print-results | FileCheck %s --check-prefix=ELEM
// RUN: remat-run %s --entry=constant_fill | FileCheck %s --check-prefix=FILL
// RUN: remat-run %s --entry=scalars --print-results | FileCheck %s --check-prefix=SCALARS
// RUN: remat-run %s --entry=same_result_twice | FileCheck %s --check-prefix=TWICE
// RUN: remat-run %s --entry=sequential --repeat=3 | FileCheck %s --check-prefix=SEQ
// RUN: remat-run %s --entry=simultaneous | FileCheck %s --check-prefix=SIM
// RUN: not remat-run %s 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: remat-run %s --entry=sequential --json | FileCheck %s --check-prefix=JSON

// Already-bufferized input (it frees its buffers itself, so remat-run lowers
// it without adding deallocations): the same bits and the same peak.
// RUN: remat-opt %s --remat-bufferize | remat-run - --entry=sequential | FileCheck %s --check-prefix=MEMREF
// MEMREF:      result #0: memref<f32> sum=[[SUM:.*]] fnv1a64=[[HASH:.*]]
// MEMREF-NEXT: peak_bytes: 4112
// MEMREF:      leaked_bytes: 0
// RUN: remat-run %s --entry=sequential | FileCheck %s --check-prefix=TENSOR
// TENSOR: result #0: tensor<f32> sum=1223.78076 abs_sum=1223.78076 fnv1a64=0xb7eff859ed200375

// --pipeline accepts remat's own passes too (here a cost annotation before
// the lowering), and --print-lowered shows what would be JIT-compiled: only
// the entry survives.
// RUN: remat-run %s --entry=sequential --repeat=3 --pipeline='builtin.module(func.func(remat-annotate-costs),remat-lower-to-cpu)' | FileCheck %s --check-prefix=SEQ
// RUN: remat-run %s --entry=elementwise --print-lowered | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: llvm.func @matmul_i32
// LOWERED:     llvm.func @elementwise(
// LOWERED-NOT: llvm.func @sequential

// Reordering the temporaries changes the peak, not the bits of the result.
// RUN: remat-run %s --entry=sequential | grep '^result' > %t.sequential
// RUN: remat-run %s --entry=simultaneous | grep '^result' | diff %t.sequential -

// Pipeline options, on @sequential (hand-computed from the heap trace below):
// RUN: remat-run %s --entry=sequential --pipeline='builtin.module(remat-lower-to-cpu{early-dealloc=false})' | FileCheck %s --check-prefix=LATE
// RUN: remat-run %s --entry=sequential --pipeline='remat-lower-to-cpu{buffer-alignment=64 arena=false}' | FileCheck %s --check-prefix=PAD
// RUN: remat-run %s --entry=sequential --pipeline='remat-lower-to-cpu{buffer-alignment=64 use-aligned-alloc=true arena=false}' | FileCheck %s --check-prefix=ROUND
// RUN: remat-run %s --entry=sequential --pipeline='remat-lower-to-cpu{deallocate=false arena=false}' | FileCheck %s --check-prefix=LEAK
// RUN: remat-run %s --entry=sequential --pipeline='remat-lower-to-cpu{use-generic-functions=false}' | FileCheck %s --check-prefix=LIBC
// RUN: remat-run %s --entry=sequential --pipeline='remat-lower-to-cpu{buffer-alignment=64}' | FileCheck %s --check-prefix=PADARENA
// Each buffer on its own (arena=false), @sequential's heap trace below.
// RUN: remat-run %s --entry=sequential --pipeline='remat-lower-to-cpu{arena=false}' | FileCheck %s --check-prefix=OWN
// RUN: remat-run %s --entry=simultaneous --pipeline='remat-lower-to-cpu{arena=false}' | FileCheck %s --check-prefix=SIMOWN

// Without --entry the runner refuses to guess among the public functions
// with a body (the private @helper and the declaration are no candidates);
// test/Runner/remat-run-entry.mlir has a module where the entry is clear.
// DEFAULT: remat-run: error: several possible entries in '{{.*}}remat-run.mlir': @matmul_i32, @elementwise, @constant_fill, @scalars, @same_result_twice, @sequential, @simultaneous (public functions with a body that no other function calls); name one with --entry

func.func private @helper() -> ()
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

// a = [[0,1,2],[3,0,1]] ((i+0) mod 4, i = 0..5), b = [[1,2],[3,0],[1,2]]
// ((i+1) mod 4). a*b = [[0+3+2, 0+0+4], [3+0+1, 6+0+2]] = [[5,4],[4,8]];
// sum = 21. Bytes: i32 little endian 5,4,4,8. One heap buffer: the 2x2 i32
// accumulator (16 bytes); the inputs are remat-run's and not counted.
// MATMUL:      entry: @matmul_i32
// MATMUL-NEXT: result #0: tensor<2x2xi32> sum=21 abs_sum=21 fnv1a64=0x56220570f2bf89e8
// MATMUL-NEXT:   values: [5, 4, 4, 8]
// MATMUL-NEXT: peak_bytes: 16
// MATMUL-NEXT: arena_bytes: 16 (one allocation, every planned buffer at its offset: docs/Arena.md)
// MATMUL-NEXT: rss_growth_bytes: {{[0-9]+}} (the process
// MATMUL-NEXT: num_allocs: 1
// MATMUL-NEXT: total_allocated_bytes: 16
// MATMUL-NEXT: returned_bytes: 16
// MATMUL-NEXT: leaked_bytes: 0
// MATMUL-NEXT: input_bytes: 48 (allocated by remat-run, not counted)
func.func @matmul_i32(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  %zero = arith.constant 0 : i32
  %init = tensor.empty() : tensor<2x2xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<2x2xi32>) -> tensor<2x2xi32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xi32>, tensor<3x2xi32>)
                     outs(%acc : tensor<2x2xi32>) -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// y = x + x, x_i = f32(0.5 sin(0.1 i)): y = [0, 2*f32(0.0499167083),
// 2*f32(0.0993346654), 2*f32(0.147760103)] = [0, 0.099833414, 0.198669329,
// 0.295520216] (doubling is exact in f32); sum = 0.594022959.
// ELEM:      entry: @elementwise
// ELEM-NEXT: result #0: tensor<4xf32> sum=0.594022959 abs_sum=0.594022959 fnv1a64=0xb650ed59f2e5d6e8
// ELEM-NEXT:   values: [0, 0.099833414, 0.198669329, 0.295520216]
// ELEM-NEXT: peak_bytes: 16
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  %init = tensor.empty() : tensor<4xf32>
  %y = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>)
                  outs(%init : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// No arguments: 4 x 3.0f, sum 12; bytes 00 00 40 40 four times.
// FILL:      result #0: tensor<4xf32> sum=12 abs_sum=12 fnv1a64=0x7722b8c7f0112965
// FILL-NEXT: peak_bytes: 16
// FILL:      input_bytes: 0
func.func @constant_fill() -> tensor<4xf32> {
  %three = arith.constant 3.0 : f32
  %init = tensor.empty() : tensor<4xf32>
  %y = linalg.fill ins(%three : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// Scalar arguments are element 0 of the formula: a = 0.5 sin(0) = 0,
// b = (0 + 1) mod 4 = 1. Results: a + a = 0 (bytes 00 00 00 00), b + b = 2
// (i64 little endian), and a 2 x f64 buffer of 1.5 (16 bytes on the heap).
// SCALARS:      result #0: f32 sum=0 abs_sum=0 fnv1a64=0x4d25767f9dce13f5
// SCALARS:      result #1: i64 sum=2 abs_sum=2 fnv1a64=0xe6bd86443df8ce07
// SCALARS:      result #2: tensor<2xf64> sum=3 abs_sum=3 fnv1a64=0x5893668f9157d655
// SCALARS-NEXT:   values: [1.5, 1.5]
// SCALARS-NEXT: peak_bytes: 16
// SCALARS:      input_bytes: 0
func.func @scalars(%a: f32, %b: i64) -> (f32, i64, tensor<2xf64>) {
  %c = arith.addf %a, %a : f32
  %d = arith.addi %b, %b : i64
  %init = tensor.empty() : tensor<2xf64>
  %v = arith.constant 1.5 : f64
  %f = linalg.fill ins(%v : f64) outs(%init : tensor<2xf64>) -> tensor<2xf64>
  return %c, %d, %f : f32, i64, tensor<2xf64>
}

// Two results sharing one buffer: it is freed once (no double free, nothing
// leaked).
// TWICE:      result #0: tensor<4xf32> sum=12
// TWICE-NEXT: result #1: tensor<4xf32> sum=12
// TWICE-NEXT: peak_bytes: 16
// TWICE-NEXT: arena_bytes: 16 (one allocation
// TWICE-NEXT: rss_growth_bytes: {{[0-9]+}} (the process
// TWICE-NEXT: num_allocs: 1
// TWICE:      returned_bytes: 16
// TWICE-NEXT: leaked_bytes: 0
func.func @same_result_twice() -> (tensor<4xf32>, tensor<4xf32>) {
  %three = arith.constant 3.0 : f32
  %init = tensor.empty() : tensor<4xf32>
  %y = linalg.fill ins(%three : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}

#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>

// Two 4 KiB temporaries (1024 x f32) used one after the other. In one arena
// (the default, docs/Arena.md; offsets 16-byte aligned): a and b are never
// live together and share offset 0; s (4 bytes, 16 with the alignment) is
// live with both: at 4096. One allocation of 4112 bytes, returned with s
// in it (the caller frees it once).
// SEQ:      entry: @sequential
// SEQ:      peak_bytes: 4112
// SEQ-NOT:  note: the peak differed
// SEQ-NEXT: arena_bytes: 4112 (one allocation
// SEQ-NEXT: rss_growth_bytes: {{[0-9]+}} (the process
// SEQ-NEXT: num_allocs: 1
// SEQ-NEXT: total_allocated_bytes: 4112
// SEQ-NEXT: returned_bytes: 4112
// SEQ-NEXT: leaked_bytes: 0
// Each buffer on its own:
//   s (4)  -> 4;  a (4096) -> 4100;  sum a into s;  free a -> 4;
//   b (4096) -> 4100;  sum b into s;  free b -> 4;  s is returned.
// Peak 4 + 4096 = 4100, three allocations, 4 + 4096 + 4096 = 8196 in total.
// OWN:      peak_bytes: 4100
// OWN-NEXT: arena_bytes: 0 (no arena planned: each buffer its own allocation)
// OWN-NEXT: rss_growth_bytes: {{[0-9]+}} (the process
// OWN-NEXT: num_allocs: 3
// OWN-NEXT: total_allocated_bytes: 8196
// OWN-NEXT: returned_bytes: 4
// OWN-NEXT: leaked_bytes: 0
// SEQ:      (repeat=3)
func.func @sequential(%x: tensor<1024xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %s_init = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<f32>) -> tensor<f32>
  %a_init = tensor.empty() : tensor<1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%a_init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<1024xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%a : tensor<1024xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %b_init = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%b_init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%b : tensor<1024xf32>) outs(%s1 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s2 : tensor<f32>
}

// JSON:      "entry": "sequential",
// JSON:      "type": "tensor<f32>",
// JSON:      "peak_bytes": 4112,
// JSON-NEXT: "peak_bytes_same_every_run": true,
// JSON-NEXT: "arena_bytes": 4112,
// JSON-NEXT: "rss_growth_bytes": {{[0-9]+}},
// JSON-NEXT: "num_allocs": 1,
// JSON-NEXT: "total_allocated_bytes": 4112,
// JSON-NEXT: "returned_bytes": 4112,
// JSON-NEXT: "leaked_bytes": 0,
// JSON-NEXT: "unknown_frees": 0,
// JSON-NEXT: "input_bytes": 4096,
// JSON-NEXT: "repeat": 1,
// JSON-NEXT: "time_ms_min":

// Freed at the end of the block: s + a + b live together, so the arena
// holds 16 + 2 * 4096.
// LATE: peak_bytes: 8208
// malloc path with alignment 64: every request padded by 64 bytes:
// (4 + 64) + (4096 + 64) = 4228; returned 4 + 64 = 68.
// PAD:      peak_bytes: 4228
// PAD:      returned_bytes: 68
// In one arena, buffers that ask for 64 bytes get every offset 64-byte
// aligned: a and b at 0, s (64 bytes) at 4096: 4160; the arena asks for
// alignment 64 too, which the malloc path pads: 4224, all of it returned.
// PADARENA:      peak_bytes: 4224
// PADARENA:      returned_bytes: 4224
// aligned_alloc path: sizes rounded up to 64: 64 + 4096 = 4160.
// ROUND:    peak_bytes: 4160
// ROUND:    returned_bytes: 64
// No deallocation: 8196 at the peak, 8192 bytes of temporaries leaked.
// LEAK:      peak_bytes: 8196
// LEAK:      leaked_bytes: 8192
// Plain malloc/free bypass the tracker: nothing is counted.
// (The arena is planned all the same: malloc'd where the tracker cannot see.)
// LIBC:      peak_bytes: 0
// LIBC-NEXT: arena_bytes: 4112
// LIBC:      num_allocs: 0

// The same computation with both temporaries built before either is summed:
//   s (4) -> 4;  a -> 4100;  b -> 8196;  sum a, free a -> 4100;
//   sum b, free b -> 4.
// Peak 4 + 2 * 4096 = 8196; the same result as @sequential. In the arena
// all three side by side: 16 + 2 * 4096 = 8208.
// SIM:      entry: @simultaneous
// SIM:      peak_bytes: 8208
// SIM-NEXT: arena_bytes: 8208
// SIM-NEXT: rss_growth_bytes: {{[0-9]+}} (the process
// SIM-NEXT: num_allocs: 1
// SIM-NEXT: total_allocated_bytes: 8208
// SIMOWN:      peak_bytes: 8196
// SIMOWN-NEXT: arena_bytes: 0
// SIMOWN-NEXT: rss_growth_bytes: {{[0-9]+}} (the process
// SIMOWN-NEXT: num_allocs: 3
// SIMOWN-NEXT: total_allocated_bytes: 8196
func.func @simultaneous(%x: tensor<1024xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %s_init = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%s_init : tensor<f32>) -> tensor<f32>
  %a_init = tensor.empty() : tensor<1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%a_init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<1024xf32>
  %b_init = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%b_init : tensor<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%a : tensor<1024xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %s2 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%b : tensor<1024xf32>) outs(%s1 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s2 : tensor<f32>
}
