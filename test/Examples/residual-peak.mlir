// RUN: remat-opt %examples/residual.mlir --remat-annotate-costs --test-remat-memory=require-costs -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %examples/residual.mlir --test-remat-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCOST
// RUN: remat-opt %examples/residual.mlir --remat-annotate-costs --test-remat-memory=count-arguments=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOARGS
// RUN: remat-opt %examples/residual.mlir --remat-annotate-costs --remat-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// Peak memory of the tensor-level training step examples/residual.mlir,
// worked out by hand from the memory model of docs/Rationale.md: arguments
// are resident; a result owns its remat.cost bytes from its op to its last
// use (returned values to the end); entry #i counts the operands and the
// results of top-level op #i; tensor.empty and scalar constants own nothing.
// `require-costs` also checks that the cost pass costed every tensor op.
//
// Sizes (f32 = 4 bytes):
//   arguments: W1_i 32x64 = 8192 and W2_i 64x32 = 8192 for i = 0..4,
//              x 8x32 = 1024, target 8x32 = 1024; resident = 83968.
//   z_i, u_i, du_i, dz_i 8x64 = 2048; h_i, v_i, g_i, dh_i 8x32 = 1024;
//   u_i^T 2048; h_i^T 1024; W_i^T and every weight gradient 8192; loss 4.
//
// Top-level ops: #0-#3 scalar constants; forward block i = #(4+10i) to
// #(13+10i) (h5 at #53); loss #54-#60; g5 #62; backward block 4 #63-#86,
// block 3 #87-#110, block 2 #111-#134, block 1 #135-#158, block 0 #159-#175
// (dW2_0 #163, du0 #168, dz0 #170, x^T #172, dW1_0 #175); SGD #176-#195
// (one update every second op); return #196.
//
// Peak at #175, dW1_0 = x^T dz0 (a linalg.matmul), the last gradient.
// Live there:
//   arguments                                         83968
//   the 9 gradients computed before (dW2_4, dW1_4, dW2_3, dW1_3, dW2_2,
//     dW1_2, dW2_1, dW1_1, dW2_0), each live until its
//     SGD update at #177-#195: 9 x 8192               73728
//   loss (returned)                                       4
//   dz0 (last use here)                                2048
//   x^T (last use here)                                1024
//   fill of dW1_0 (last use here)                      8192
//   dW1_0 (this op's result)                           8192
//   total                                            177156
// Every forward activation is dead by then (z0's last use is dz0 #170, u0's
// is u0^T #160), and so are g1 (du0 #168) and du0 (dz0 #170).
//
// Runner-up, every SGD update #177, #179, ..., #195: the gradients not yet
//   consumed plus the updated weights so far are always 11 tensors:
//   83968 + 11 x 8192 + loss 4 = 174084.
// #168 du0 = g1 W2_0^T: 83968 + 9 x 8192 + loss 4 + z0 2048 + g1 1024
//   + W2_0^T 8192 + fill 2048 + du0 2048 = 173060.
// The forward alone first peaks at #51 (v4 = u4 W2_4): 83968
//   + z_i, u_i for i = 0..4 (10 x 2048) + h1..h4 (4 x 1024) + fill 1024
//   + v4 1024 = 110592.
// At the return: 83968 + loss 4 + 10 updated weights x 8192 = 165892.
//
// Total (every buffer, as if nothing were freed): 83968 + forward 46080
//   + loss 1036 + g5 1024 + backward blocks 4..1 (4 x 61440) + block 0 50176
//   + updates 81920 = 509964, where
//   forward block    = fill 2048 + z 2048 + u 2048 + fill 1024 + v 1024
//                      + h 1024 = 9216, x 5 = 46080;
//   loss             = diff 1024 + fill 4 + sum 4 + loss 4 = 1036;
//   backward block   = u^T 2048 + 2 x 8192 (dW2) + W2^T 8192 + 2 x 2048 (du)
//                      + dz 2048 + h^T 1024 + 2 x 8192 (dW1) + W1^T 8192
//                      + 2 x 1024 (dh) + g 1024 = 61440;
//   backward block 0 = the same without W1^T, dh and g: 61440 - 8192 - 2048
//                      - 1024 = 50176.

// CHECK: remark: peak = 177156 bytes at #175 linalg.matmul; resident = 83968 bytes; total = 509964 bytes
// Largest first, arguments before results on ties: the 10 weights, the 9
// gradients, the fill and dW1_0; dz0; x, target, x^T; loss.
// CHECK: remark: live at peak: %arg0 (8192), %arg1 (8192), %arg2 (8192), %arg3 (8192), %arg4 (8192), %arg5 (8192), %arg6 (8192), %arg7 (8192), %arg8 (8192), %arg9 (8192),
// CHECK-SAME: %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192), %{{[0-9]+}} (8192),
// CHECK-SAME: %{{[0-9]+}} (2048), %arg10 (1024), %arg11 (1024), %transposed{{[_0-9]*}} (1024), %{{[0-9]+}} (4){{$}}

// Without remat.cost the analysis sizes results by their types: the same
// numbers.
// NOCOST: remark: peak = 177156 bytes at #175 linalg.matmul; resident = 83968 bytes; total = 509964 bytes

// Without the arguments: 177156 - 83968 = 93188; total 509964 - 83968 = 425996.
// NOARGS: remark: peak = 93188 bytes at #175 linalg.matmul; resident = 0 bytes; total = 425996 bytes

// JSON:      "name": "residual_step",
// JSON-NEXT: "peak_bytes": 177156,
// JSON-NEXT: "peak_op_index": 175,
// JSON-NEXT: "peak_op": "linalg.matmul",
// JSON-NEXT: "peak_loc": "{{.*}}",
// JSON-NEXT: "resident_bytes": 83968,
// JSON-NEXT: "total_bytes": 509964,
// JSON:      "index": 51,
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "live_bytes": 110592
// JSON:      "index": 168,
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "live_bytes": 173060
// JSON:      "index": 175,
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "live_bytes": 177156
// JSON:      "index": 177,
// JSON-NEXT: "op": "linalg.generic",
// JSON-NEXT: "live_bytes": 174084
// JSON:      "index": 195,
// JSON-NEXT: "op": "linalg.generic",
// JSON-NEXT: "live_bytes": 174084
// JSON:      "index": 196,
// JSON-NEXT: "op": "func.return",
// JSON-NEXT: "live_bytes": 165892
// JSON-NEXT: }
// JSON-NEXT: ],
