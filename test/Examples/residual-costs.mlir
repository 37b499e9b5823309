// RUN: remat-opt %examples/residual.mlir --remat-annotate-costs | FileCheck %s
// RUN: remat-opt %examples/residual.mlir --remat-annotate-costs | FileCheck %s --check-prefix=MATMUL

// The costs `--remat-annotate-costs` records on examples/residual.mlir,
// checked against numbers worked out by hand from the rules of
// docs/CostModel.md:
//   bytes = elements x 4 (f32); 0 for tensor.empty;
//   FLOPs = iteration-domain size x arithmetic ops of the payload
//           (matmul M x K . K x N: 2*M*N*K; fill/transpose: 0;
//            arith.select: 0, arith.cmpf: 1).
// Shapes: B = 8, width 32, hidden width 64, 5 blocks. Every matmul of the
// step multiplies 8, 32 and 64 in some order: 2*8*32*64 = 32768 FLOPs. The
// CHECK lines follow the op order of the example; operand types pin each op.

// CHECK-LABEL: func.func @residual_step(

// Block 0 (blocks 1..4 are the same ops on h_i, W1_i, W2_i).
// fill 8x64: 2048 bytes, 0 FLOPs.
// CHECK:       linalg.fill {remat.cost = #remat.cost<bytes = [2048], flops = 0>} ins(%cst : f32) outs(%{{.*}} : tensor<8x64xf32>)
// z0 = h0 W1_0: M = 8, K = 32, N = 64: 32768 FLOPs; 8*64*4 = 2048 bytes.
// CHECK-NEXT:  linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 32768>} ins(%arg10, %arg0 : tensor<8x32xf32>, tensor<32x64xf32>)
// u0 = relu(z0): 8*64 = 512 points x 1 maximumf = 512 FLOPs; 2048 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<8x64xf32>) attrs = {remat.cost = #remat.cost<bytes = [2048], flops = 512>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.maximumf
// u0 W2_0: M = 8, K = 64, N = 32: 32768 FLOPs; 8*32*4 = 1024 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [1024], flops = 32768>} ins(%{{.*}}, %arg1 : tensor<8x64xf32>, tensor<64x32xf32>)
// h1 = h0 + u0 W2_0: 256 points x 1 addf = 256 FLOPs; 1024 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg10, %{{.*}} : tensor<8x32xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) attrs = {remat.cost = #remat.cost<bytes = [1024], flops = 256>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.addf

// Block 4, the last forward matmul: u4 W2_4.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [1024], flops = 32768>} ins(%{{.*}}, %arg9 : tensor<8x64xf32>, tensor<64x32xf32>)

// MSE loss.
// diff = h5 - target: 256 points x 1 subf = 256 FLOPs; 1024 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %arg11 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) attrs = {remat.cost = #remat.cost<bytes = [1024], flops = 256>}
// sum diff^2 into a 0-d tensor: 256 points x (mulf + addf) = 512 FLOPs; 4 bytes.
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<8x32xf32>) outs(%{{.*}} : tensor<f32>) attrs = {remat.cost = #remat.cost<bytes = [4], flops = 512>}
// loss = 0.5/B * sum: 1 point x 1 mulf = 1 FLOP; 4 bytes.
// CHECK:       linalg.generic {{.*}} iterator_types = []} ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<f32>) attrs = {remat.cost = #remat.cost<bytes = [4], flops = 1>}
// g5 = diff / B: 256 FLOPs; 1024 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) attrs = {remat.cost = #remat.cost<bytes = [1024], flops = 256>}

// Block 4 backward.
// u4^T: 64*8*4 = 2048 bytes, 0 FLOPs.
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<64x8xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
// dW2_4 = u4^T g5: M = 64, K = 8, N = 32: 32768 FLOPs; 64*32*4 = 8192 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [8192], flops = 32768>} ins(%{{.*}}, %{{.*}} : tensor<64x8xf32>, tensor<8x32xf32>)
// W2_4^T: 32*64*4 = 8192 bytes, 0 FLOPs.
// CHECK:       linalg.transpose ins(%arg9 : tensor<64x32xf32>) outs(%{{.*}} : tensor<32x64xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [8192], flops = 0>}
// du4 = g5 W2_4^T: M = 8, K = 32, N = 64: 32768 FLOPs; 2048 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 32768>} ins(%{{.*}}, %{{.*}} : tensor<8x32xf32>, tensor<32x64xf32>)
// dz4 = du4 * [z4 > 0]: 512 points x (cmpf 1 + select 0) = 512 FLOPs; 2048 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [2048], flops = 512>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.cmpf ogt
// CHECK-NEXT:  arith.select
// h4^T: 32*8*4 = 1024 bytes.
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<8x32xf32>) outs(%{{.*}} : tensor<32x8xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [1024], flops = 0>}
// dW1_4 = h4^T dz4: M = 32, K = 8, N = 64: 32768 FLOPs; 32*64*4 = 8192 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [8192], flops = 32768>} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x64xf32>)
// dz4 W1_4^T: M = 8, K = 64, N = 32: 32768 FLOPs; 1024 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [1024], flops = 32768>} ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x32xf32>)
// g4 = g5 + dz4 W1_4^T: 256 FLOPs; 1024 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x32xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>) attrs = {remat.cost = #remat.cost<bytes = [1024], flops = 256>}

// Block 0 backward ends with dW1_0 = x^T dz0 (x^T from the argument).
// CHECK:       linalg.transpose ins(%arg10 : tensor<8x32xf32>) outs(%{{.*}} : tensor<32x8xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [1024], flops = 0>}
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [8192], flops = 32768>} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x64xf32>)

// SGD update p - lr * dp: 32*64 = 2048 points x (mulf + subf) = 4096 FLOPs;
// 8192 bytes, for each of the 10 weights.
// CHECK:       linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<32x64xf32>, tensor<32x64xf32>) outs(%{{.*}} : tensor<32x64xf32>) attrs = {remat.cost = #remat.cost<bytes = [8192], flops = 4096>}
// CHECK:       linalg.generic {{.*}} ins(%arg9, %{{.*}} : tensor<64x32xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<64x32xf32>) attrs = {remat.cost = #remat.cost<bytes = [8192], flops = 4096>}
// CHECK:       return %{{[^{]*$}}

// Every one of the 29 matmuls costs 32768 FLOPs (5 blocks x (2 forward +
// dW2, du, dW1) + 4 x dh).
// MATMUL-COUNT-29: linalg.matmul {remat.cost = #remat.cost<bytes = [{{1024|2048|8192}}], flops = 32768>}
// MATMUL-NOT:      linalg.matmul
