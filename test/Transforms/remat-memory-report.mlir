// RUN: remat-opt %s --remat-memory-report -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %s --remat-memory-report="output=%t.json function=buffers count-arguments=false count-alignment-padding" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=FILE
// RUN: remat-opt %s --remat-memory-report="output=-" 2>/dev/null | FileCheck %s --check-prefix=IR

// The JSON report of the memory analysis: per function the peak, the op at
// the peak, the live bytes at every top-level op and the values live at the
// peak, largest first.

// Tensor IR. Resident: %x = 16 x f32 = 64 bytes.
//   #0 tensor.empty                        64
//   #1 %a = 1000                   64 + 1000 = 1064
//   #2 %b = 200, last use of %a    64 + 1000 + 200 = 1264  <- peak
//   #3 %c = 70                     64 + 200 + 70 = 334
//   #4 return %c                   64 + 70 = 134
// Total: 64 + 1000 + 200 + 70 = 1334.
// CHECK:      {
// CHECK-NEXT:   "functions": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "chain",
// CHECK-NEXT:       "peak_bytes": 1264,
// CHECK-NEXT:       "peak_op_index": 2,
// CHECK-NEXT:       "peak_op": "linalg.exp",
// CHECK-NEXT:       "peak_loc": "{{.*}}remat-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}",
// CHECK-NEXT:       "resident_bytes": 64,
// CHECK-NEXT:       "total_bytes": 1334,
// CHECK-NEXT:       "unsized_arguments": 0,
// CHECK-NEXT:       "timeline": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 0,
// CHECK-NEXT:           "op": "tensor.empty",
// CHECK-NEXT:           "live_bytes": 64
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 1,
// CHECK-NEXT:           "op": "linalg.exp",
// CHECK-NEXT:           "live_bytes": 1064
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 2,
// CHECK-NEXT:           "op": "linalg.exp",
// CHECK-NEXT:           "live_bytes": 1264
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 3,
// CHECK-NEXT:           "op": "linalg.add",
// CHECK-NEXT:           "live_bytes": 334
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 4,
// CHECK-NEXT:           "op": "func.return",
// CHECK-NEXT:           "live_bytes": 134
// CHECK-NEXT:         }
// CHECK-NEXT:       ],
// CHECK-NEXT:       "live_at_peak": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "value": "%1",
// CHECK-NEXT:           "op": "linalg.exp",
// CHECK-NEXT:           "loc": "{{.*}}remat-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}",
// CHECK-NEXT:           "bytes": 1000
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "value": "%2",
// CHECK-NEXT:           "op": "linalg.exp",
// CHECK-NEXT:           "loc": "{{.*}}",
// CHECK-NEXT:           "bytes": 200
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "value": "%arg0",
// CHECK-NEXT:           "op": "argument",
// CHECK-NEXT:           "loc": "{{.*}}",
// CHECK-NEXT:           "bytes": 64
// CHECK-NEXT:         }
// CHECK-NEXT:       ]
// CHECK-NEXT:     },
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<16xf32>
  %a = linalg.exp {remat.cost = #remat.cost<bytes = [1000], flops = 16>}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %b = linalg.exp {remat.cost = #remat.cost<bytes = [200], flops = 16>}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %c = linalg.add {remat.cost = #remat.cost<bytes = [70], flops = 16>}
      ins(%b, %x : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
}

// Declarations are not reported.
func.func private @declaration(memref<4xf32>)

// Bufferized IR. Resident: %arg0 = 4 x f32 = 16 bytes.
//   #0 %a = 64 x f32 = 256 (alignment 64)   16 + 256 = 272
//   #1 %b = 8 x f64 = 64              16 + 256 + 64 = 336  <- peak
//   #2 dealloc %a                           16 + 64 = 80
//   #3 return (%b never freed)                   80
// With count-arguments=false and count-alignment-padding: %a counts
// 256 + 64 = 320; peak 320 + 64 = 384 at #1, total 384.
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "buffers",
// CHECK-NEXT:       "peak_bytes": 336,
// CHECK-NEXT:       "peak_op_index": 1,
// CHECK-NEXT:       "peak_op": "memref.alloc",
// CHECK-NEXT:       "peak_loc": "{{.*}}",
// CHECK-NEXT:       "resident_bytes": 16,
// CHECK-NEXT:       "total_bytes": 336,
// CHECK:            "live_at_peak": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "value": "%alloc",
// CHECK-NEXT:           "op": "memref.alloc",
// CHECK-NEXT:           "loc": "{{.*}}",
// CHECK-NEXT:           "bytes": 256
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "value": "%alloc_0",
// CHECK-NEXT:           "op": "memref.alloc",
// CHECK-NEXT:           "loc": "{{.*}}",
// CHECK-NEXT:           "bytes": 64
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "value": "%arg0",
// CHECK-NEXT:           "op": "argument",
// CHECK-NEXT:           "loc": "{{.*}}",
// CHECK-NEXT:           "bytes": 16
// CHECK-NEXT:         }
// CHECK-NEXT:       ]
// CHECK-NEXT:     }
// CHECK-NEXT:   ]
// CHECK-NEXT: }

// FILE:      "functions": [
// FILE-NEXT:   {
// FILE-NEXT:     "name": "buffers",
// FILE-NEXT:     "peak_bytes": 384,
// FILE-NEXT:     "peak_op_index": 1,
// FILE-NEXT:     "peak_op": "memref.alloc",
// FILE-NEXT:     "peak_loc": "{{.*}}",
// FILE-NEXT:     "resident_bytes": 0,
// FILE-NEXT:     "total_bytes": 384,
// FILE-NOT:      "name": "chain"

// The pass leaves the IR unchanged; with output=- the report goes to stderr,
// never into the IR on stdout.
// IR-NOT: "functions"
// IR: func.func @chain
// IR: linalg.exp {remat.cost = #remat.cost<bytes = [1000], flops = 16>}
// IR: func.func @buffers
func.func @buffers(%arg0: memref<4xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %b = memref.alloc() : memref<8xf64>
  memref.dealloc %a : memref<64xf32>
  return
}
