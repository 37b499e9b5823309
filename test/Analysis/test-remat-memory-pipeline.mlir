// The memory analysis on tensor IR and on what the real CPU bufferization
// pipeline of MLIR 22 (docs/Running.md, remat-lower-to-cpu) makes of it.
//
// RUN: remat-opt %s --split-input-file --test-remat-memory -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TENSOR
// RUN: remat-opt %s --split-input-file \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --test-remat-memory=per-op -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF
// RUN: remat-opt %s --split-input-file \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   --test-remat-memory=count-alignment-padding -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAD
// RUN: remat-opt %s --split-input-file \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --ownership-based-buffer-deallocation --canonicalize --buffer-deallocation-simplification \
// RUN:   --test-remat-memory=per-op -o /dev/null 2>&1 | FileCheck %s --check-prefix=OWN

// A chain of four 4x8 x f32 (128-byte) results; no costs, so sizes come
// from the types. Resident: %x = 128.
// Tensor IR: a value dies after its last use, so at most two results are
// live with the argument:
//   #1 %a                 128 + 128 = 256
//   #3 %b, last use of %a 128 + 256 = 384  <- peak (first reached)
//   #5 %c, last use of %b 128 + 256 = 384
//   #7 %d, last use of %c 128 + 256 = 384
//   #8 return %d          128 + 128 = 256
// TENSOR: remark: peak = 384 bytes at #3 linalg.exp; resident = 128 bytes; total = 640 bytes
// TENSOR: remark: live at peak: %arg0 (128), %1 (128), %3 (128)
//
// Bufferized: the ownership-based deallocation pipeline puts every
// memref.dealloc at the end of the block, so all four buffers are live
// together:
//   #0 alloc  128 + 128 = 256    #2 alloc 384    #4 alloc 512
//   #6 alloc  128 + 512 = 640  <- peak
//   #8, #9, #10 dealloc %alloc, %alloc_0, %alloc_1: 512, 384, 256
//   #11 return (%alloc_2 is returned, never freed): 256
// BUF: remark: peak = 640 bytes at #6 memref.alloc; resident = 128 bytes; total = 640 bytes
// BUF: remark: live at peak: %arg0 (128), %alloc (128), %alloc_0 (128), %alloc_1 (128), %alloc_2 (128)
// BUF-COUNT-2: remark: live = 256 bytes
// BUF-COUNT-2: remark: live = 384 bytes
// BUF-COUNT-2: remark: live = 512 bytes
// BUF-COUNT-2: remark: live = 640 bytes
// BUF: remark: live = 512 bytes
// BUF: remark: live = 384 bytes
// BUF-COUNT-2: remark: live = 256 bytes
// Every alloc carries `alignment = 64`, which the LLVM lowering adds to the
// malloc'd size: 128 + 4 * (128 + 64) = 896.
// PAD: remark: peak = 896 bytes at #6 memref.alloc; resident = 128 bytes; total = 896 bytes
//
// The unlowered form (`bufferization.dealloc (%alloc) if (%true)` at the
// end of the block) gives the same numbers, one index later (a leading
// arith.constant true).
// OWN: remark: peak = 640 bytes at #7 memref.alloc; resident = 128 bytes; total = 640 bytes
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.exp ins(%a : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %c = linalg.exp ins(%b : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %d = linalg.exp ins(%c : tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A buffer chosen by scf.if: its ownership is known only at run time, so the
// pipeline emits a dealloc helper call and `scf.if %owned { memref.dealloc }`
// with computed conditions; those are assumed not to free (upper bound).
// Resident: %a = 128. Buffers: %alloc (linalg.add) 128, %alloc_11 (inside
// the scf.if) 128, %alloc_0 (result) 128, and the helper's bookkeeping:
// memref<2xindex> 16, memref<2xi1> 2, memref<0xindex> 0, memref<2xi1> 2,
// memref<0xi1> 0. Peak after the last of them (#21):
//   128 + 3 * 128 + 16 + 2 + 2 = 532.
// The bookkeeping is freed unconditionally: 532 - 16 = 516, - 0 = 516,
// - 2 = 514, - 2 = 512, - 0 = 512; the return keeps 512 (the two buffers
// under computed conditions and the result stay counted).
// BUF: remark: peak = 532 bytes at #21 memref.alloc; resident = 128 bytes; total = 532 bytes
// BUF: remark: live at peak: %arg0 (128), %alloc (128), %alloc_11 (128), %alloc_0 (128), %alloc_1 (16), %alloc_2 (2), %alloc_7 (2)
// BUF-COUNT-2: remark: live = 516 bytes
// BUF: remark: live = 514 bytes
// BUF-COUNT-3: remark: live = 512 bytes
// The generated helper has only dynamically shaped arguments and no
// allocation.
// BUF: remark: peak = 0 bytes at #0 arith.constant; resident = 0 bytes; total = 0 bytes
// BUF: remark: 5 argument(s) of dynamic size not counted
//
// Unlowered: `bufferization.dealloc (%alloc, %base_buffer) if (%true,
// %owned)` frees %alloc (constant true) but not the buffer behind
// %base_buffer (%alloc_1 or %alloc: ambiguous). Peak with the three
// 128-byte buffers and %a: 512; after the dealloc 128 + 128 (%alloc_1) +
// 128 (%alloc_0, returned) = 384.
// OWN: remark: peak = 512 bytes at #5 memref.alloc; resident = 128 bytes; total = 512 bytes
// OWN: remark: live at peak: %arg0 (128), %alloc (128), %alloc_1 (128), %alloc_0 (128)
// OWN-COUNT-3: remark: live = 512 bytes
// OWN-COUNT-2: remark: live = 384 bytes
//
// Tensor IR: the scf.if result falls back to its type size (128) and the
// tensor computed inside the scf.if is a transient of it (128), an upper
// bound: 128 + 128 (%0, used inside) + 128 + 128 = 512 at the scf.if.
// TENSOR: remark: peak = 512 bytes at #2 scf.if; resident = 128 bytes; total = 640 bytes
func.func @select(%a: tensor<4x8xf32>, %c: i1) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.add ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = scf.if %c -> tensor<4x8xf32> {
    %e2 = tensor.empty() : tensor<4x8xf32>
    %1 = linalg.mul ins(%0, %0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %1 : tensor<4x8xf32>
  } else {
    scf.yield %0 : tensor<4x8xf32>
  }
  %e3 = tensor.empty() : tensor<4x8xf32>
  %2 = linalg.add ins(%r, %r : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
