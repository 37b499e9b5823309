// RUN: remat-opt %examples/cnn.mlir --remat-annotate-costs | FileCheck %s

// The costs `--remat-annotate-costs` records on examples/cnn.mlir, checked
// against numbers worked out by hand from the rules of docs/CostModel.md:
//   bytes = elements x 4 (f32); 0 for tensor.empty and for views;
//   FLOPs = iteration-domain size x arithmetic ops of the payload
//           (conv: 2*N*OH*OW*F*KH*KW*C; max pooling: N*OH*OW*C*KH*KW;
//            fill/transpose/pad: 0; arith.select: 0, arith.cmpf: 1).
// Shapes: N = 4, images 10x10x3, conv1 3x3x3->4 (out 8x8), conv2 3x3x4->8
// (out 6x6), 2x2/2 max pooling (out 3x3x8), linear 72 -> 10. The CHECK lines
// follow the op order of the example; operand types pin each op.

// CHECK-LABEL: func.func @cnn_step(

// Convolution 1.
// fill 4x8x8x4 = 1024 elements: 4096 bytes, 0 FLOPs.
// CHECK:       linalg.fill {remat.cost = #remat.cost<bytes = [4096], flops = 0>} ins(%cst : f32) outs(%{{.*}} : tensor<4x8x8x4xf32>)
// N = 4, OH = OW = 8, F = 4, KH = KW = 3, C = 3:
// 2*4*8*8*4*3*3*3 = 2*4*64*4*27 = 55296 FLOPs; 4096 bytes.
// CHECK-NEXT:  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, remat.cost = #remat.cost<bytes = [4096], flops = 55296>, strides = dense<1> : tensor<2xi64>} ins(%arg6, %arg0 : tensor<4x10x10x3xf32>, tensor<3x3x3x4xf32>)
// z1 = conv1 + c1: 1024 points x 1 addf = 1024 FLOPs; 4096 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<4x8x8x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x8x8x4xf32>) attrs = {remat.cost = #remat.cost<bytes = [4096], flops = 1024>}
// a1 = relu(z1): 1024 points x 1 maximumf = 1024 FLOPs; 4096 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8x8x4xf32>) outs(%{{.*}} : tensor<4x8x8x4xf32>) attrs = {remat.cost = #remat.cost<bytes = [4096], flops = 1024>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.maximumf

// Convolution 2: N = 4, OH = OW = 6, F = 8, KH = KW = 3, C = 4:
// 2*4*6*6*8*3*3*4 = 2*144*8*36 = 82944 FLOPs; 4*6*6*8 = 1152 elements = 4608 bytes.
// CHECK:       linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, remat.cost = #remat.cost<bytes = [4608], flops = 82944>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %arg2 : tensor<4x8x8x4xf32>, tensor<3x3x4x8xf32>)
// a2 = relu(z2): 1152 points x 1 = 1152 FLOPs; 4608 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<4x6x6x8xf32>) outs(%{{.*}} : tensor<4x6x6x8xf32>) attrs = {remat.cost = #remat.cost<bytes = [4608], flops = 1152>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.maximumf

// Max pooling 2x2, stride 2: N*OH*OW*C*KH*KW = 4*3*3*8*2*2 = 1152 points x
// 1 maximumf = 1152 FLOPs; 4*3*3*8 = 288 elements = 1152 bytes. The window
// operand is a tensor.empty: 0 bytes.
// CHECK:       tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<2x2xf32>
// CHECK:       linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, remat.cost = #remat.cost<bytes = [1152], flops = 1152>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<4x6x6x8xf32>, tensor<2x2xf32>)
// Flatten to 4x72: a view of the pooled tensor, 0 bytes, 0 FLOPs.
// CHECK-NEXT:  tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4x3x3x8xf32> into tensor<4x72xf32>

// Linear: f W3, M = 4, K = 72, N = 10: 2*4*10*72 = 5760 FLOPs;
// 4*10*4 = 160 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [160], flops = 5760>} ins(%collapsed, %arg4 : tensor<4x72xf32>, tensor<72x10xf32>)

// Softmax cross-entropy on 4x10 = 40 points.
// max over classes: 40 FLOPs; 4*4 = 16 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<4x10xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1] {remat.cost = #remat.cost<bytes = [16], flops = 40>}
// exp(z3 - m): 40 x 2 = 80 FLOPs; 160 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [160], flops = 80>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.subf
// CHECK-NEXT:  math.exp
// sum over classes: 40 FLOPs; 16 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<4x10xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [1] {remat.cost = #remat.cost<bytes = [16], flops = 40>}
// nll: 40 x (mulf + addf) = 80 FLOPs; 4 bytes.
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%arg7, %{{.*}} : tensor<4x10xf32>, tensor<4x10xf32>) outs(%{{.*}} : tensor<f32>) attrs = {remat.cost = #remat.cost<bytes = [4], flops = 80>}

// Backward.
// f^T: 72*4*4 = 1152 bytes, 0 FLOPs (data movement).
// CHECK:       linalg.transpose ins(%collapsed : tensor<4x72xf32>) outs(%{{.*}} : tensor<72x4xf32>) permutation = [1, 0] {remat.cost = #remat.cost<bytes = [1152], flops = 0>}
// dW3 = f^T dz3: M = 72, K = 4, N = 10: 2*72*10*4 = 5760 FLOPs;
// 72*10*4 = 2880 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [2880], flops = 5760>} ins(%{{.*}}, %{{.*}} : tensor<72x4xf32>, tensor<4x10xf32>)
// df = dz3 W3^T: M = 4, K = 10, N = 72: 2*4*72*10 = 5760 FLOPs;
// 4*72*4 = 1152 bytes.
// CHECK:       linalg.matmul {remat.cost = #remat.cost<bytes = [1152], flops = 5760>} ins(%{{.*}}, %{{.*}} : tensor<4x10xf32>, tensor<10x72xf32>)
// dp = reshape(df): a view, 0 bytes, 0 FLOPs.
// CHECK-NEXT:  tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] output_shape [4, 3, 3, 8] {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4x72xf32> into tensor<4x3x3x8xf32>
// Pooling backward: 4*6*6*8 = 1152 points x (cmpf 1 + select 0) = 1152
// FLOPs; 4608 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %expanded : tensor<4x6x6x8xf32>, tensor<4x3x3x8xf32>, tensor<4x3x3x8xf32>) outs(%{{.*}} : tensor<4x6x6x8xf32>) attrs = {remat.cost = #remat.cost<bytes = [4608], flops = 1152>}
// dK2: loops (i, j, c, f, n, h, w) = 3*3*4*8*4*6*6 = 41472 points x
// (mulf + addf) = 82944 FLOPs; 3*3*4*8 = 288 elements = 1152 bytes.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8x8x4xf32>, tensor<4x6x6x8xf32>) outs(%{{.*}} : tensor<3x3x4x8xf32>) attrs = {remat.cost = #remat.cost<bytes = [1152], flops = 82944>}
// dc2 = sum over n, h, w of 4x6x6x8: 1152 FLOPs; 8*4 = 32 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<4x6x6x8xf32>) outs(%{{.*}} : tensor<8xf32>) dimensions = [0, 1, 2] {remat.cost = #remat.cost<bytes = [32], flops = 1152>}
// Zero padding of dz2 to 4x10x10x8 = 3200 elements: a new buffer of
// 12800 bytes (not a view), 0 FLOPs.
// CHECK:       tensor.pad
// CHECK:       } {remat.cost = #remat.cost<bytes = [12800], flops = 0>} : tensor<4x6x6x8xf32> to tensor<4x10x10x8xf32>
// da1: loops (n, h, w, c, i, j, f) = 4*8*8*4*3*3*8 = 73728 points x 2 =
// 147456 FLOPs; 4096 bytes.
// CHECK:       linalg.generic {{.*}} ins(%padded, %arg2 : tensor<4x10x10x8xf32>, tensor<3x3x4x8xf32>) outs(%{{.*}} : tensor<4x8x8x4xf32>) attrs = {remat.cost = #remat.cost<bytes = [4096], flops = 147456>}
// dz1 = da1 * [z1 > 0]: 1024 FLOPs; 4096 bytes.
// CHECK:       linalg.generic {{.*}} attrs = {remat.cost = #remat.cost<bytes = [4096], flops = 1024>}
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  arith.cmpf ogt
// CHECK-NEXT:  arith.select
// dK1: loops (i, j, c, f, n, h, w) = 3*3*3*4*4*8*8 = 27648 points x 2 =
// 55296 FLOPs; 3*3*3*4 = 108 elements = 432 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg6, %{{.*}} : tensor<4x10x10x3xf32>, tensor<4x8x8x4xf32>) outs(%{{.*}} : tensor<3x3x3x4xf32>) attrs = {remat.cost = #remat.cost<bytes = [432], flops = 55296>}
// dc1 = sum over n, h, w of 4x8x8x4: 1024 FLOPs; 16 bytes.
// CHECK:       linalg.reduce ins(%{{.*}} : tensor<4x8x8x4xf32>) outs(%{{.*}} : tensor<4xf32>) dimensions = [0, 1, 2] {remat.cost = #remat.cost<bytes = [16], flops = 1024>}

// SGD update p - lr * dp: elements x (mulf + subf).
// K2': 288 points x 2 = 576 FLOPs; 1152 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg2, %{{.*}} : tensor<3x3x4x8xf32>, tensor<3x3x4x8xf32>) outs(%{{.*}} : tensor<3x3x4x8xf32>) attrs = {remat.cost = #remat.cost<bytes = [1152], flops = 576>}
// W3': 720 points x 2 = 1440 FLOPs; 2880 bytes.
// CHECK:       linalg.generic {{.*}} ins(%arg4, %{{.*}} : tensor<72x10xf32>, tensor<72x10xf32>) outs(%{{.*}} : tensor<72x10xf32>) attrs = {remat.cost = #remat.cost<bytes = [2880], flops = 1440>}
// CHECK:       return %{{[^{]*$}}
