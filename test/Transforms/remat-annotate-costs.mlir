// RUN: remat-opt %s --split-input-file --remat-annotate-costs | FileCheck %s

// Bytes of a tensor result = elements x element bytes; FLOPs of a linalg op =
// iteration-domain size x arithmetic ops of its payload (multiply + add = 2).

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  // Scalars produce no tensor: no cost.
  // CHECK: arith.constant 0.000000e+00 : f32
  %zero = arith.constant 0.0 : f32
  // tensor.empty owns no storage: its consumer's result owns the buffer.
  // CHECK: tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %init = tensor.empty() : tensor<32x16xf32>
  // fill: 32*16*4 = 2048 bytes; a store, no arithmetic: 0 FLOPs.
  // CHECK: linalg.fill {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  // matmul M=32, N=16, K=64: 2*M*N*K = 2*32*16*64 = 65536 FLOPs; 2048 bytes.
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [2048], flops = 65536>}
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x16xf32>)
                      outs(%fill : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %mm : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_matvec
func.func @batch_matmul_matvec(%a: tensor<4x8x16xf32>, %b: tensor<4x16x32xf32>,
                               %m: tensor<16x32xf32>, %v: tensor<32xf32>,
                               %i0: tensor<4x8x32xf32>, %i1: tensor<16xf32>)
    -> (tensor<4x8x32xf32>, tensor<16xf32>) {
  // B=4, M=8, N=32, K=16: 2*4*8*32*16 = 32768 FLOPs; 4*8*32*4 = 4096 bytes.
  // CHECK: linalg.batch_matmul {remat.cost = #remat.cost<bytes = [4096], flops = 32768>}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x32xf32>)
                           outs(%i0 : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  // M=16, K=32: 2*16*32 = 1024 FLOPs; 16*4 = 64 bytes.
  // CHECK: linalg.matvec {remat.cost = #remat.cost<bytes = [64], flops = 1024>}
  %1 = linalg.matvec ins(%m, %v : tensor<16x32xf32>, tensor<32xf32>)
                     outs(%i1 : tensor<16xf32>) -> tensor<16xf32>
  return %0, %1 : tensor<4x8x32xf32>, tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @convolutions
func.func @convolutions(%img: tensor<2x10x10x3xf32>, %flt: tensor<3x3x3x8xf32>,
                        %o0: tensor<2x8x8x8xf32>,
                        %img1: tensor<1x3x9x9xf32>, %flt1: tensor<4x3x3x3xf32>,
                        %o1: tensor<1x4x7x7xf32>,
                        %img2: tensor<1x6x6x4xf32>, %flt2: tensor<3x3x4xf32>,
                        %o2: tensor<1x4x4x4xf32>)
    -> (tensor<2x8x8x8xf32>, tensor<1x4x7x7xf32>, tensor<1x4x4x4xf32>) {
  // N=2, OH=OW=8, F=8, KH=KW=3, C=3:
  // 2*N*OH*OW*F*KH*KW*C = 2*2*8*8*8*3*3*3 = 55296 FLOPs; 2*8*8*8*4 = 4096 bytes.
  // CHECK: linalg.conv_2d_nhwc_hwcf {remat.cost = #remat.cost<bytes = [4096], flops = 55296>}
  %0 = linalg.conv_2d_nhwc_hwcf
         ins(%img, %flt : tensor<2x10x10x3xf32>, tensor<3x3x3x8xf32>)
         outs(%o0 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  // N=1, F=4, OH=OW=7, C=3, KH=KW=3: 2*1*4*7*7*3*3*3 = 10584 FLOPs;
  // 1*4*7*7*4 = 784 bytes.
  // CHECK: linalg.conv_2d_nchw_fchw {remat.cost = #remat.cost<bytes = [784], flops = 10584>}
  %1 = linalg.conv_2d_nchw_fchw
         ins(%img1, %flt1 : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>)
         outs(%o1 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  // Depthwise, N=1, OH=OW=4, C=4, KH=KW=3: 2*1*4*4*4*3*3 = 1152 FLOPs;
  // 1*4*4*4*4 = 256 bytes.
  // CHECK: linalg.depthwise_conv_2d_nhwc_hwc {remat.cost = #remat.cost<bytes = [256], flops = 1152>}
  %2 = linalg.depthwise_conv_2d_nhwc_hwc
         ins(%img2, %flt2 : tensor<1x6x6x4xf32>, tensor<3x3x4xf32>)
         outs(%o2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1, %2 : tensor<2x8x8x8xf32>, tensor<1x4x7x7xf32>, tensor<1x4x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @pooling
func.func @pooling(%in: tensor<1x8x8x3xf32>, %out: tensor<1x4x4x3xf32>)
    -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  %window = tensor.empty() : tensor<2x2xf32>
  // N=1, OH=OW=4, C=3, KH=KW=2, one max per window element:
  // 1*4*4*3*2*2 = 192 FLOPs; 1*4*4*3*4 = 192 bytes.
  // CHECK: linalg.pooling_nhwc_max {dilations = {{.*}}, remat.cost = #remat.cost<bytes = [192], flops = 192>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %window : tensor<1x8x8x3xf32>, tensor<2x2xf32>)
         outs(%out : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  // Same domain, one add per window element: 192 FLOPs.
  // CHECK: linalg.pooling_nhwc_sum {dilations = {{.*}}, remat.cost = #remat.cost<bytes = [192], flops = 192>
  %1 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %window : tensor<1x8x8x3xf32>, tensor<2x2xf32>)
         outs(%out : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %0, %1 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @generics
func.func @generics(%x: tensor<16x32xf32>, %y: tensor<16x32xf32>, %init: tensor<16x32xf32>,
                    %acc: tensor<16xf32>)
    -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  // ReLU: 16*32 = 512 iterations x 1 maximumf = 512 FLOPs; 16*32*4 = 2048 bytes.
  // CHECK: linalg.generic {{.*}}remat.cost = #remat.cost<bytes = [2048], flops = 512>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  // x*y + x: multiply-add counts 2 per iteration: 512*2 = 1024 FLOPs.
  // CHECK: linalg.generic {{.*}}remat.cost = #remat.cost<bytes = [2048], flops = 1024>
  %muladd = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x32xf32>, tensor<16x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  // math.fma counts 2; the f16 -> f32 cast counts 0: 512*2 = 1024 FLOPs.
  // CHECK: linalg.generic {{.*}}remat.cost = #remat.cost<bytes = [2048], flops = 1024>
  %fma = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x32xf32>, tensor<16x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %h = arith.truncf %a : f32 to f16
    %e = arith.extf %h : f16 to f32
    %f = math.fma %e, %b, %out : f32
    linalg.yield %f : f32
  } -> tensor<16x32xf32>
  // Row sum: 16*32 = 512 iterations x 1 addf = 512 FLOPs; 16*4 = 64 bytes.
  // CHECK: linalg.generic {{.*}}remat.cost = #remat.cost<bytes = [64], flops = 512>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %relu, %muladd, %fma, %sum : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @multi_result
func.func @multi_result(%x: tensor<8x8xf32>, %o0: tensor<8x8xf32>, %o1: tensor<8x8xi1>)
    -> (tensor<8x8xf32>, tensor<8x8xi1>) {
  %zero = arith.constant 0.0 : f32
  // One size per result: 8*8*4 = 256 bytes (f32) and 8*8*1 = 64 bytes (i1,
  // one byte each); addf + cmpf = 2 per iteration: 64*2 = 128 FLOPs.
  // CHECK: linalg.generic {{.*}}remat.cost = #remat.cost<bytes = [256, 64], flops = 128>
  %0:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%o0, %o1 : tensor<8x8xf32>, tensor<8x8xi1>) {
  ^bb0(%in: f32, %a: f32, %b: i1):
    %d = arith.addf %in, %in : f32
    %c = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %d, %c : f32, i1
  } -> (tensor<8x8xf32>, tensor<8x8xi1>)
  return %0#0, %0#1 : tensor<8x8xf32>, tensor<8x8xi1>
}

// -----

// CHECK-LABEL: func.func @linalg_data_movement_and_reduce
func.func @linalg_data_movement_and_reduce(%x: tensor<16x32xf32>, %v: tensor<32xf32>,
                                           %t: tensor<32x16xf32>, %b: tensor<16x32xf32>,
                                           %r: tensor<16xf32>)
    -> (tensor<32x16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16xf32>) {
  // Pure data movement: 0 FLOPs; 2048 bytes each.
  // CHECK: linalg.transpose ins({{.*}}) outs({{.*}}) permutation = [1, 0]  {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
  %0 = linalg.transpose ins(%x : tensor<16x32xf32>) outs(%t : tensor<32x16xf32>) permutation = [1, 0]
  // CHECK: linalg.broadcast ins({{.*}}) outs({{.*}}) dimensions = [0]  {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
  %1 = linalg.broadcast ins(%v : tensor<32xf32>) outs(%b : tensor<16x32xf32>) dimensions = [0]
  // CHECK: linalg.copy {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
  %2 = linalg.copy ins(%x : tensor<16x32xf32>) outs(%b : tensor<16x32xf32>) -> tensor<16x32xf32>
  // Reduce 16x32 over dim 1: 512 iterations x 1 addf = 512 FLOPs; 64 bytes.
  // CHECK: linalg.reduce ins({{.*}}) outs({{.*}}) dimensions = [1]  {remat.cost = #remat.cost<bytes = [64], flops = 512>}
  %3 = linalg.reduce ins(%x : tensor<16x32xf32>) outs(%r : tensor<16xf32>) dimensions = [1]
         (%in: f32, %acc: f32) {
           %s = arith.addf %in, %acc : f32
           linalg.yield %s : f32
         }
  return %0, %1, %2, %3 : tensor<32x16xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @views
func.func @views(%x: tensor<512xf32>, %m: memref<4xf32>, %d: tensor<?x32xf32>)
    -> (tensor<16x32xf32>, tensor<512xf32>, tensor<4x8xf32>, tensor<4xf32>,
        tensor<16x32xf32>, tensor<512xi32>, tensor<8x64xf32>) {
  // Views alias their source once bufferized: 0 bytes, 0 FLOPs.
  // CHECK: tensor.expand_shape {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %e = tensor.expand_shape %x [[0, 1]] output_shape [16, 32] : tensor<512xf32> into tensor<16x32xf32>
  // CHECK: tensor.collapse_shape {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<16x32xf32> into tensor<512xf32>
  // CHECK: tensor.extract_slice {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %s = tensor.extract_slice %e[0, 0] [4, 8] [1, 1] : tensor<16x32xf32> to tensor<4x8xf32>
  // CHECK: bufferization.to_tensor {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  // A view is free even where its type is dynamic or it casts to static.
  // CHECK: tensor.cast {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %k = tensor.cast %d : tensor<?x32xf32> to tensor<16x32xf32>
  // CHECK: tensor.bitcast {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %b = tensor.bitcast %x : tensor<512xf32> to tensor<512xi32>
  %shape = arith.constant dense<[8, 64]> : tensor<2xi64>
  // CHECK: tensor.reshape {{.*}} {remat.cost = #remat.cost<bytes = [0], flops = 0>}
  %r = tensor.reshape %x(%shape) : (tensor<512xf32>, tensor<2xi64>) -> tensor<8x64xf32>
  return %e, %c, %s, %t, %k, %b, %r : tensor<16x32xf32>, tensor<512xf32>, tensor<4x8xf32>,
      tensor<4xf32>, tensor<16x32xf32>, tensor<512xi32>, tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func.func @elementwise_tensors
func.func @elementwise_tensors(%x: tensor<4x8xf32>, %h: tensor<4xf16>, %p: tensor<10xi1>,
                               %ix: tensor<4xindex>, %c: tensor<4x8xi1>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<10xi1>,
        tensor<4xindex>, tensor<4x8xf32>) {
  // One op per element: 4*8 = 32 FLOPs; 4*8*4 = 128 bytes.
  // CHECK: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [128], flops = 32>}
  %0 = arith.addf %x, %x : tensor<4x8xf32>
  // Transcendentals weigh 1 too: 32 FLOPs.
  // CHECK: math.exp {{.*}} {remat.cost = #remat.cost<bytes = [128], flops = 32>}
  %1 = math.exp %0 : tensor<4x8xf32>
  // fma = multiply + add: 2*32 = 64 FLOPs.
  // CHECK: math.fma {{.*}} {remat.cost = #remat.cost<bytes = [128], flops = 64>}
  %2 = math.fma %0, %1, %x : tensor<4x8xf32>
  // Casts are not arithmetic: 0 FLOPs; 4*4 = 16 bytes.
  // CHECK: arith.extf {{.*}} {remat.cost = #remat.cost<bytes = [16], flops = 0>}
  %3 = arith.extf %h : tensor<4xf16> to tensor<4xf32>
  // i1 takes one byte: 10 bytes; 10 FLOPs.
  // CHECK: arith.xori {{.*}} {remat.cost = #remat.cost<bytes = [10], flops = 10>}
  %4 = arith.xori %p, %p : tensor<10xi1>
  // index takes 8 bytes: 4*8 = 32 bytes; index arithmetic counts 0 FLOPs.
  // CHECK: arith.addi {{.*}} {remat.cost = #remat.cost<bytes = [32], flops = 0>}
  %5 = arith.addi %ix, %ix : tensor<4xindex>
  // select moves data: 0 FLOPs.
  // CHECK: arith.select {{.*}} {remat.cost = #remat.cost<bytes = [128], flops = 0>}
  %6 = arith.select %c, %0, %1 : tensor<4x8xi1>, tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4xf32>, tensor<10xi1>, tensor<4xindex>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @tensor_ops
func.func @tensor_ops(%x: tensor<4x8xf32>, %dest: tensor<16x32xf32>, %s: f32,
                      %z: complex<f32>, %i: index)
    -> (tensor<4xf32>, tensor<16x32xf32>, tensor<6x10xf32>, tensor<8x8xf32>,
        tensor<2xf32>, tensor<4x8xf32>, tensor<4xcomplex<f32>>, tensor<4x8xf32>, f32) {
  // Constants are read-only global data: 0 bytes.
  // CHECK: arith.constant {remat.cost = #remat.cost<bytes = [0], flops = 0>} dense<1.000000e+00> : tensor<4xf32>
  %cst = arith.constant dense<1.0> : tensor<4xf32>
  // Data movement into a new tensor: full bytes (16*32*4 = 2048), 0 FLOPs.
  // CHECK: tensor.insert_slice {{.*}} {remat.cost = #remat.cost<bytes = [2048], flops = 0>}
  %ins = tensor.insert_slice %x into %dest[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<16x32xf32>
  // 6*10*4 = 240 bytes.
  // CHECK: tensor.pad
  // CHECK: } {remat.cost = #remat.cost<bytes = [240], flops = 0>} : tensor<4x8xf32> to tensor<6x10xf32>
  %pad = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %s : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  // 8*8*4 = 256 bytes.
  // CHECK: tensor.concat {{.*}} {remat.cost = #remat.cost<bytes = [256], flops = 0>}
  %cat = tensor.concat dim(0) %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  // 2*4 = 8 bytes.
  // CHECK: tensor.from_elements {{.*}} {remat.cost = #remat.cost<bytes = [8], flops = 0>}
  %fe = tensor.from_elements %s, %s : tensor<2xf32>
  // CHECK: tensor.insert {{.*}} {remat.cost = #remat.cost<bytes = [128], flops = 0>}
  %in = tensor.insert %s into %x[%i, %i] : tensor<4x8xf32>
  // complex<f32> takes 2*4 = 8 bytes: 4*8 = 32 bytes.
  // CHECK: tensor.splat {{.*}} {remat.cost = #remat.cost<bytes = [32], flops = 0>}
  %sp = tensor.splat %z : tensor<4xcomplex<f32>>
  // The body runs once per element: 4*8 = 32 elements x 1 mulf = 32 FLOPs
  // (index_cast and uitofp are casts: 0).
  // CHECK: tensor.generate
  // CHECK: } {remat.cost = #remat.cost<bytes = [128], flops = 32>} : tensor<4x8xf32>
  %gen = tensor.generate {
  ^bb0(%a: index, %b: index):
    %ai = arith.index_cast %a : index to i32
    %af = arith.uitofp %ai : i32 to f32
    %sq = arith.mulf %af, %af : f32
    tensor.yield %sq : f32
  } : tensor<4x8xf32>
  // Reads a scalar: no tensor result, no cost.
  // CHECK: tensor.extract %{{[a-z0-9]+}}[%{{[a-z0-9]+}}, %{{[a-z0-9]+}}] : tensor<4x8xf32>
  %el = tensor.extract %x[%i, %i] : tensor<4x8xf32>
  return %cst, %ins, %pad, %cat, %fe, %in, %sp, %gen, %el : tensor<4xf32>, tensor<16x32xf32>,
      tensor<6x10xf32>, tensor<8x8xf32>, tensor<2xf32>, tensor<4x8xf32>, tensor<4xcomplex<f32>>,
      tensor<4x8xf32>, f32
}

// -----

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<4x10xf32>, %o: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // max, subtract, exp, sum, divide: 5 per element: 5*4*10 = 200 FLOPs;
  // 4*10*4 = 160 bytes.
  // CHECK: linalg.softmax {{.*}}remat.cost = #remat.cost<bytes = [160], flops = 200>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x10xf32>) outs(%o : tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// CHECK-LABEL: func.func @element_widths
func.func @element_widths(%a: tensor<3xf64>, %b: tensor<3xbf16>, %c: tensor<5xi8>,
                          %d: tensor<3xi4>) -> (tensor<3xf64>, tensor<3xbf16>, tensor<5xi8>, tensor<3xi4>) {
  // 3*8 = 24 bytes.
  // CHECK: arith.mulf {{.*}} {remat.cost = #remat.cost<bytes = [24], flops = 3>}
  %0 = arith.mulf %a, %a : tensor<3xf64>
  // 3*2 = 6 bytes.
  // CHECK: arith.mulf {{.*}} {remat.cost = #remat.cost<bytes = [6], flops = 3>}
  %1 = arith.mulf %b, %b : tensor<3xbf16>
  // 5*1 = 5 bytes.
  // CHECK: arith.muli {{.*}} {remat.cost = #remat.cost<bytes = [5], flops = 5>}
  %2 = arith.muli %c, %c : tensor<5xi8>
  // Sub-byte types round up to a byte per element: 3 bytes.
  // CHECK: arith.muli {{.*}} {remat.cost = #remat.cost<bytes = [3], flops = 3>}
  %3 = arith.muli %d, %d : tensor<3xi4>
  return %0, %1, %2, %3 : tensor<3xf64>, tensor<3xbf16>, tensor<5xi8>, tensor<3xi4>
}

// -----

// CHECK-LABEL: func.func @existing_cost_kept
func.func @existing_cost_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  // A cost written by hand wins (the pass is idempotent). It may overstate
  // the result's 4*4 = 16 bytes, never understate them.
  // CHECK: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [70], flops = 9>}
  %0 = arith.addf %x, %x {remat.cost = #remat.cost<bytes = [70], flops = 9>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mixed_precision_and_new_linalg_ops
func.func @mixed_precision_and_new_linalg_ops(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>,
                                              %c: tensor<8x4xf32>, %x: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  // bf16 inputs, f32 accumulator: the payload's extf casts count 0, mulf +
  // addf 2: 2*8*4*16 = 1024 FLOPs; 8*4*4 = 128 bytes.
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [128], flops = 1024>}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>)
                     outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  // One add per element: 8*4 = 32 FLOPs.
  // CHECK: linalg.elementwise {{.*}}remat.cost = #remat.cost<bytes = [128], flops = 32>
  %1 = linalg.elementwise kind=#linalg.elementwise_kind<add>
         ins(%x, %x : tensor<8x4xf32>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  // The same contraction as the matmul: 1024 FLOPs.
  // CHECK: linalg.contract {{.*}}remat.cost = #remat.cost<bytes = [128], flops = 1024>
  %2 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// Structured control flow is costed from its body: scf.for is trip count x
// body, scf.if the costlier branch. Bytes are those of the results.
// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%x: tensor<4xf32>, %w: tensor<4xf32>, %p: i1) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // Body: mulf (4) + tanh (4) = 8 FLOPs, 3 trips: 24; 16 bytes.
  // CHECK: scf.for
  // CHECK:   arith.mulf {{.*}} {remat.cost = #remat.cost<bytes = [16], flops = 4>}
  // CHECK:   math.tanh {{.*}} {remat.cost = #remat.cost<bytes = [16], flops = 4>}
  // CHECK: } {remat.cost = #remat.cost<bytes = [16], flops = 24>}
  %l = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %t = arith.mulf %acc, %w : tensor<4xf32>
    %u = math.tanh %t : tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  }
  // Then: exp + addf = 8 FLOPs; else: negf = 4: the costlier branch, 8.
  // CHECK: scf.if
  // CHECK: } {remat.cost = #remat.cost<bytes = [16], flops = 8>}
  %r = scf.if %p -> (tensor<4xf32>) {
    %e = math.exp %l : tensor<4xf32>
    %s = arith.addf %e, %e : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    %n = arith.negf %l : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %l, %r : tensor<4xf32>, tensor<4xf32>
}
