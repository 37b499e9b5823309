// RUN: remat-opt %examples/mlp.mlir --remat-annotate-costs | FileCheck %s

// The costs `--remat-annotate-costs` records on examples/mlp.mlir, checked
// against numbers worked out by hand from the rules of docs/CostModel.md:
//   bytes = elements x 4 (f32); 0 for tensor.empty;
//   FLOPs = iteration-domain size x arithmetic ops of the payload
//           (matmul M x K . K x N: 2*M*N*K; fill/transpose: 0;
//            arith.select: 0, arith.cmpf: 1).
// Shapes: B = 8, widths 32 -> 64 -> 64 -> 10. The CHECK lines follow the
// op order of the example; operand types pin each op.

// CHECK-LABEL: func.func @mlp_step(
// Scalar constants produce no tensor: no cost attribute.
// CHECK:       %cst = arith.constant 0.000000e+00 : f32{{$}}

// Layer 1.
// tensor.empty owns no storage (its writer's result does).
// CHECK:       tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<8x64xf32>
// fill 8x64: 512 * 4 = 2048 bytes; a store: 0 FLOPs.
// CHECK-NEXT:  linalg.fill {remat.cost = #remat.cost<bytes = [2048], flops = 0>} ins(%cst : f32) outs(%{{.*}} : tensor<8x64xf32>)
// x W1: M = 8, K = 32, N = 64: 2*8*64*32 = 32768 FLOPs; 8*64*4 = 2048 bytes.
// CHECK-NEXT:  linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 32768>} ins(%arg6, %arg0 : tensor<8x32xf32>, tensor<32x64xf32>)
// z1 = mm1 + b1: 8*64 = 512 points x 1 addf = 512 FLOPs; 2048 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<8x64xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<8x64xf32>) attrs = {remat.cost = #remat.cost<bytes = [2048], flops = 512>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.addf
// a1 = relu(z1): 512 points x 1 maximumf = 512 FLOPs; 2048 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [2048], flops = 512>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.maximumf
// CHECK-NEXT:  linalg.yield

// Layer 2: a1 W2, M = 8, K = 64, N = 64: 2*8*64*64 = 65536 FLOPs; 2048 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 65536>} ins(%{{.*}}, %arg2 : tensor<8x64xf32>, tensor<64x64xf32>)

// Layer 3: a2 W3, M = 8, K = 64, N = 10: 2*8*10*64 = 10240 FLOPs;
// 8*10*4 = 320 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [320], flops = 10240>} ins(%{{.*}}, %arg4 : tensor<8x64xf32>, tensor<64x10xf32>)

// Softmax cross-entropy.
// max over classes: 8*10 = 80 points x 1 maximumf = 80 FLOPs; 8*4 = 32 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<8x10xf32>) outs(%{{.*}} : tensor<8xf32>) dimensions = [1] {remat.cost = #remat.cost<bytes = [32], flops = 80>}
// exp(z3 - m): 80 points x (subf + exp) = 160 FLOPs; 320 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [320], flops = 160>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.subf
// CHECK-NEXT:  math.exp
// sum over classes: 80 points x 1 addf = 80 FLOPs; 32 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<8x10xf32>) outs(%{{.*}} : tensor<8xf32>) dimensions = [1] {remat.cost = #remat.cost<bytes = [32], flops = 80>}
// log_softmax: 80 points x (subf + log + subf) = 240 FLOPs; 320 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [320], flops = 240>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.subf
// CHECK-NEXT:  math.log
// CHECK-NEXT:  arith.subf
// nll = sum y * logp, reduction to a 0-d tensor: 80 points x (mulf + addf)
// = 160 FLOPs; 1 element = 4 bytes.
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%arg7, %{{.*}} : tensor<8x10xf32>, tensor<8x10xf32>) outs(%{{.*}} : tensor<f32>) attrs = {remat.cost = #remat.cost<bytes = [4], flops = 160>}
// loss = -nll / B: 0-d domain (1 point) x (negf + mulf) = 2 FLOPs; 4 bytes.
// CHECK:       linalg.generic {{.*}} iterator_types = []} ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<f32>) attrs = {remat.cost = #remat.cost<bytes = [4], flops = 2>}

// Backward.
// dz3 = (e / s - y) / B: 80 points x (divf + subf + mulf) = 240 FLOPs; 320 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %arg7 : tensor<8x10xf32>, tensor<8xf32>, tensor<8x10xf32>) outs(%{{.*}} : tensor<8x10xf32>) attrs = {remat.cost = #remat.cost<bytes = [320], flops = 240>}
// a2^T: data movement, 0 FLOPs; 64*8*4 = 2048 bytes.
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<64x8xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
// dW3 = a2^T dz3: M = 64, K = 8, N = 10: 2*64*10*8 = 10240 FLOPs;
// 64*10*4 = 2560 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [2560], flops = 10240>} ins(%transposed, %{{.*}} : tensor<64x8xf32>, tensor<8x10xf32>)
// db3 = sum over the batch: 80 FLOPs; 10*4 = 40 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<8x10xf32>) outs(%{{.*}} : tensor<10xf32>) dimensions = [0] {remat.cost = #remat.cost<bytes = [40], flops = 80>}
// W3^T: 10*64*4 = 2560 bytes, 0 FLOPs.
// CHECK:       linalg.transpose ins(%arg4 : tensor<64x10xf32>) outs(%{{.*}} : tensor<10x64xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [2560], flops = 0>}
// da2 = dz3 W3^T: M = 8, K = 10, N = 64: 2*8*64*10 = 10240 FLOPs; 2048 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 10240>} ins(%{{.*}}, %{{.*}} : tensor<8x10xf32>, tensor<10x64xf32>)
// dz2 = da2 * [z2 > 0]: 512 points x (cmpf 1 + select 0) = 512 FLOPs; 2048 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [2048], flops = 512>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.cmpf ogt
// CHECK-NEXT:  arith.select
// dW2 = a1^T dz2: M = 64, K = 8, N = 64: 2*64*64*8 = 65536 FLOPs;
// 64*64*4 = 16384 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [16384], flops = 65536>} ins(%{{.*}}, %{{.*}} : tensor<64x8xf32>, tensor<8x64xf32>)
// db2 = sum over the batch of 8x64: 512 FLOPs; 64*4 = 256 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<64xf32>) dimensions = [0] {remat.cost = #remat.cost<bytes = [256], flops = 512>}
// da1 = dz2 W2^T: M = 8, K = 64, N = 64: 65536 FLOPs; 2048 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 65536>} ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x64xf32>)
// dW1 = x^T dz1: M = 32, K = 8, N = 64: 2*32*64*8 = 32768 FLOPs;
// 32*64*4 = 8192 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [8192], flops = 32768>} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x64xf32>)

// SGD update p - lr * dp: elements x (mulf + subf).
// W1': 32*64 = 2048 points x 2 = 4096 FLOPs; 8192 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<32x64xf32>, tensor<32x64xf32>) outs(%{{.*}} : tensor<32x64xf32>) attrs = {remat.cost = #remat.cost<bytes = [8192], flops = 4096>}
// W2': 64*64 = 4096 points x 2 = 8192 FLOPs; 16384 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg2, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<64x64xf32>) attrs = {remat.cost = #remat.cost<bytes = [16384], flops = 8192>}
// b3': 10 points x 2 = 20 FLOPs; 40 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg5, %{{.*}} : tensor<10xf32>, tensor<10xf32>) outs(%{{.*}} : tensor<10xf32>) attrs = {remat.cost = #remat.cost<bytes = [40], flops = 20>}
// The terminator produces nothing and gets no cost.
// CHECK:       return %{{[^{]*$}}
