// RUN: remat-opt %examples/mlp.mlir --remat-annotate-costs --test-remat-memory=require-costs -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %examples/mlp.mlir --test-remat-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCOST
// RUN: remat-opt %examples/mlp.mlir --remat-annotate-costs --test-remat-memory=count-arguments=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOARGS
// RUN: remat-opt %examples/mlp.mlir --remat-annotate-costs --remat-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// Peak memory of the tensor-level training step examples/mlp.mlir, worked
// out by hand from the memory model of docs/Rationale.md: arguments are
// resident; a result owns its remat.cost bytes from its op to its last use
// (returned values to the end); entry #i counts the operands and the results
// of top-level op #i; tensor.empty and scalar constants own nothing.
// `require-costs` also checks that the cost pass costed every tensor op.
//
// Sizes (f32 = 4 bytes):
//   arguments: W1 32x64 = 8192, b1 = 256, W2 64x64 = 16384, b2 = 256,
//              W3 64x10 = 2560, b3 = 40, x 8x32 = 1024, y 8x10 = 320;
//              resident = 29032.
//   8x64 activations and their gradients 2048; 8x10 320; 8 32; loss 4;
//   64x8 transposes 2048; W3^T 2560; W2^T 16384; x^T 1024;
//   dW1 8192, dW2 16384, dW3 2560, db1/db2 256, db3 40; the updated
//   parameters as their arguments.
//
// Top-level ops: #0-#3 scalar constants, forward #4-#37 (loss at #37),
// backward #38-#77, SGD #78-#89 (W1' #79, b1' #81, W2' #83, b2' #85,
// W3' #87, b3' #89), return #90.
//
// Peak at #83, W2' = W2 - 0.1 dW2 (a linalg.generic). Live there:
//   arguments                                         29032
//   loss (returned)                                       4
//   dW3 (last use: W3' #87)                            2560
//   db3 (last use: b3' #89)                              40
//   dW2 (last use here)                               16384
//   db2 (last use: b2' #85)                             256
//   W1' (returned)                                     8192
//   b1' (returned)                                      256
//   W2' (this op's result)                            16384
//   total                                             73108
// Everything else is dead: the forward activations (z1's last use is dz1 at
// #69), dW1 and db1 (last used by W1' #79 and b1' #81). The update is not in
// place, so W2, dW2 and W2' coexist.
//
// Runner-up, #67 da1 = dz2 W2^T: 29032 + z1 2048 + loss 4 + dW3 2560
//   + db3 40 + dz2 2048 + dW2 16384 + db2 256 + W2^T 16384 + fill 2048
//   + da1 2048 = 72852.
// #59 dW2 = a1^T dz2: 29032 + z1 2048 + loss 4 + dW3 2560 + db3 40 + dz2 2048
//   + a1^T 2048 + fill 16384 + dW2 16384 = 70548.
// The forward alone peaks at #32 (log_softmax): 29032 + z1, a1, z2, a2
//   (4 x 2048) + z3 320 + max 32 + exp 320 + sum 32 + logp 320 = 38248.
// At the return: 29032 + loss 4 + the updated parameters 27688 = 56724.
//
// Total (every buffer, as if nothing were freed): 29032 + forward 18124
//   + backward 92048 + updates 27688 = 166892, where
//   forward  = 8 x 2048 (fill, mm, z, a of layers 1, 2) + 3 x 320 (layer 3)
//            + 2 x 32 (max) + 320 (exp) + 2 x 32 (sum) + 320 (logp)
//            + 3 x 4 (nll fill, nll, loss)                      = 18124,
//   backward = dz3 320 + a2^T 2048 + 2 x 2560 (dW3) + 2 x 40 (db3)
//            + W3^T 2560 + 2 x 2048 (da2) + dz2 2048 + a1^T 2048
//            + 2 x 16384 (dW2) + 2 x 256 (db2) + W2^T 16384 + 2 x 2048 (da1)
//            + dz1 2048 + x^T 1024 + 2 x 8192 (dW1) + 2 x 256 (db1) = 92048.

// CHECK: remark: peak = 73108 bytes at #83 linalg.generic; resident = 29032 bytes; total = 166892 bytes
// Largest first, arguments before results on ties: W2, dW2, W2'; W1, W1';
// W3, dW3; x; y; b1, b2, db2, b1'; b3, db3; loss.
// CHECK:      remark: live at peak: %arg2 (16384), %{{[0-9]+}} (16384), %{{[0-9]+}} (16384), %arg0 (8192), %{{[0-9]+}} (8192), %arg4 (2560), %{{[0-9]+}} (2560), %arg6 (1024), %arg7 (320), %arg1 (256), %arg3 (256), %reduced{{[_0-9]*}} (256), %{{[0-9]+}} (256), %arg5 (40), %reduced{{[_0-9]*}} (40), %{{[0-9]+}} (4){{$}}

// Without remat.cost the analysis sizes results by their types: the same
// numbers (the example has no views, and tensor.empty owns 0 either way).
// NOCOST: remark: peak = 73108 bytes at #83 linalg.generic; resident = 29032 bytes; total = 166892 bytes

// Without the arguments: 73108 - 29032 = 44076; total 166892 - 29032 = 137860.
// NOARGS: remark: peak = 44076 bytes at #83 linalg.generic; resident = 0 bytes; total = 137860 bytes

// JSON:      "name": "mlp_step",
// JSON-NEXT: "peak_bytes": 73108,
// JSON-NEXT: "peak_op_index": 83,
// JSON-NEXT: "peak_op": "linalg.generic",
// JSON-NEXT: "peak_loc": "{{.*}}",
// JSON-NEXT: "resident_bytes": 29032,
// JSON-NEXT: "total_bytes": 166892,
// JSON:      "index": 0,
// JSON-NEXT: "op": "arith.constant",
// JSON-NEXT: "live_bytes": 29032
// JSON:      "index": 32,
// JSON-NEXT: "op": "linalg.generic",
// JSON-NEXT: "live_bytes": 38248
// JSON:      "index": 59,
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "live_bytes": 70548
// JSON:      "index": 67,
// JSON-NEXT: "op": "linalg.matmul",
// JSON-NEXT: "live_bytes": 72852
// JSON:      "index": 83,
// JSON-NEXT: "op": "linalg.generic",
// JSON-NEXT: "live_bytes": 73108
// JSON:      "index": 90,
// JSON-NEXT: "op": "func.return",
// JSON-NEXT: "live_bytes": 56724
// JSON-NEXT: }
// JSON-NEXT: ],
