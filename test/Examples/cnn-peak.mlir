// RUN: remat-opt %examples/cnn.mlir --remat-annotate-costs --test-remat-memory=require-costs -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %examples/cnn.mlir --test-remat-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCOST
// RUN: remat-opt %examples/cnn.mlir --remat-annotate-costs --test-remat-memory=count-arguments=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOARGS
// RUN: remat-opt %examples/cnn.mlir --remat-annotate-costs --remat-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// Peak memory of the tensor-level training step examples/cnn.mlir, worked
// out by hand from the memory model of docs/Rationale.md: arguments are
// resident; a result owns its remat.cost bytes from its op to its last use
// (returned values to the end); a view (collapse_shape, expand_shape) owns
// nothing and keeps its source live until the view's own last use; entry #i
// counts the operands and the results of top-level op #i; tensor.empty and
// scalar constants own nothing. `require-costs` also checks that the cost
// pass costed every tensor op.
//
// Sizes (f32 = 4 bytes):
//   arguments: K1 3x3x3x4 = 432, c1 = 16, K2 3x3x4x8 = 1152, c2 = 32,
//              W3 72x10 = 2880, b3 = 40, x 4x10x10x3 = 4800, y 4x10 = 160;
//              resident = 9512.
//   4x8x8x4 (conv1 side) 4096; 4x6x6x8 (conv2 side) 4608; pooled 4x3x3x8
//   1152; 4x10 160; 4 16; loss 4; f^T 1152; W3^T 2880; df 1152;
//   padded dz2 4x10x10x8 12800; dW3 2880, db3 40, dK2 1152, dc2 32,
//   dK1 432, dc1 16.
//
// Top-level ops: #0-#3 scalar constants, forward #4-#42 (pool #21, flat
// view #22, loss #42), backward #43-#80 (df #57, dp view #58, da2 #60,
// dz2 #62, dK2 #65, pad #69, da1 #72, dz1 #74), SGD #81-#92, return #93.
//
// Peak at #72, da1 = full correlation of pad(dz2) with K2 (a linalg.generic).
// Live there:
//   arguments                                          9512
//   z1 (last use: dz1 #74)                             4096
//   loss (returned)                                       4
//   dW3 (last use: W3' #90)                            2880
//   db3 (last use: b3' #92)                              40
//   dK2 (last use: K2' #86)                            1152
//   dc2 (last use: c2' #88)                              32
//   pad(dz2) (last use here)                          12800
//   fill of da1 (last use here)                        4096
//   da1 (this op's result)                             4096
//   total                                             38708
// Dead by then: a1 (last use dK2 #65), z2 (dz2 #62), a2 and the pooled
// tensor (da2 #60), dz2 (pad #69), dz3 (df #57).
//
// Runner-up, #60 da2 (max-pool backward): 9512 + z1 4096 + a1 4096 + z2 4608
//   + a2 4608 + pooled 1152 + loss 4 + dW3 2880 + db3 40
//   + df 1152 (kept live by its view dp, used here) + da2 4608 = 36756.
// #69 pad: 9512 + z1 4096 + loss 4 + dW3 2880 + db3 40 + dz2 4608 + dK2 1152
//   + dc2 32 + pad 12800 = 35124.
// #59 (tensor.empty of da2, after the last use of df itself at #58): still
//   counts df through the view dp: 9512 + z1 4096 + a1 4096 + z2 4608
//   + a2 4608 + pooled 1152 + loss 4 + dW3 2880 + db3 40 + df 1152 = 32148.
// The forward alone peaks at #21 (pooling): 9512 + z1, a1 (2 x 4096)
//   + z2, a2 (2 x 4608) + fill 1152 + pooled 1152 = 29224.
// At the return: 9512 + loss 4 + the updated parameters
//   (432 + 16 + 1152 + 32 + 2880 + 40 = 4552) = 14068.
//
// Total (every buffer, as if nothing were freed): 9512 + forward 37996
//   + backward 49904 + updates 4552 = 101964, where
//   forward  = 4 x 4096 (fill, conv, z1, a1) + 4 x 4608 (fill, conv, z2, a2)
//            + 2 x 1152 (pool fill, pool) + 3 x 160 (fill, mm, z3)
//            + 2 x 16 (max) + 160 (exp) + 2 x 16 (sum) + 160 (logp)
//            + 3 x 4 (nll fill, nll, loss)                      = 37996,
//   backward = dz3 160 + f^T 1152 + 2 x 2880 (dW3) + 2 x 40 (db3)
//            + W3^T 2880 + 2 x 1152 (df) + da2 4608 + dz2 4608
//            + 2 x 1152 (dK2) + 2 x 32 (dc2) + pad 12800 + 2 x 4096 (da1)
//            + dz1 4096 + 2 x 432 (dK1) + 2 x 16 (dc1)          = 49904.

// CHECK: remark: peak = 38708 bytes at #72 linalg.generic; resident = 9512 bytes; total = 101964 bytes
// Largest first, arguments before results on ties: pad; x; z1, fill, da1;
// W3, dW3; K2, dK2; K1; y; b3, db3; c2, dc2; c1; loss.
// CHECK: remark: live at peak: %padded (12800), %arg6 (4800), %{{[0-9]+}} (4096), %{{[0-9]+}} (4096), %{{[0-9]+}} (4096), %arg4 (2880), %{{[0-9]+}} (2880), %arg2 (1152), %{{[0-9]+}} (1152), %arg0 (432), %arg7 (160), %arg5 (40), %reduced{{[_0-9]*}} (40), %arg3 (32), %reduced{{[_0-9]*}} (32), %arg1 (16), %{{[0-9]+}} (4){{$}}

// Without remat.cost the analysis sizes results by their types and still
// treats the two reshapes as views: the same numbers.
// NOCOST: remark: peak = 38708 bytes at #72 linalg.generic; resident = 9512 bytes; total = 101964 bytes

// Without the arguments: 38708 - 9512 = 29196; total 101964 - 9512 = 92452.
// NOARGS: remark: peak = 29196 bytes at #72 linalg.generic; resident = 0 bytes; total = 92452 bytes

// JSON:      "name": "cnn_step",
// JSON-NEXT: "peak_bytes": 38708,
// JSON-NEXT: "peak_op_index": 72,
// JSON-NEXT: "peak_op": "linalg.generic",
// JSON-NEXT: "peak_loc": "{{.*}}",
// JSON-NEXT: "resident_bytes": 9512,
// JSON-NEXT: "total_bytes": 101964,
// JSON:      "index": 21,
// JSON-NEXT: "op": "linalg.pooling_nhwc_max",
// JSON-NEXT: "live_bytes": 29224
// JSON:      "index": 59,
// JSON-NEXT: "op": "tensor.empty",
// JSON-NEXT: "live_bytes": 32148
// JSON:      "index": 60,
// JSON-NEXT: "op": "linalg.generic",
// JSON-NEXT: "live_bytes": 36756
// JSON:      "index": 69,
// JSON-NEXT: "op": "tensor.pad",
// JSON-NEXT: "live_bytes": 35124
// JSON:      "index": 72,
// JSON-NEXT: "op": "linalg.generic",
// JSON-NEXT: "live_bytes": 38708
// JSON:      "index": 93,
// JSON-NEXT: "op": "func.return",
// JSON-NEXT: "live_bytes": 14068
// JSON-NEXT: }
// JSON-NEXT: ],
