// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s

// bf16 steps compile for the GPU as they are: bf16 in device memory (2-byte
// loads and stores), each operation computed in f32 and rounded back to
// bf16 (sm_90 converts in one instruction), a matrix product accumulated in
// f32 as the importer emits it (docs/Importer.md, "bf16"). Only compiled
// here; running needs a GPU.
//
// CHECK-LABEL: llvm.func @bf16_step(
// The matmul kernel widens its bf16 operands; the last one rounds.
// CHECK: gpu.binary {{.*}}assembly = "{{.*}}ld.global.b16{{.*}}cvt.f32.bf16
// CHECK: gpu.binary {{.*}}assembly = "{{.*}}cvt.rn.bf16.f32{{.*}}st.global.b16
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bf16_step(%x: tensor<8x4xbf16>, %w: tensor<4x8xbf16>)
    -> tensor<8x8xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x4xbf16>, tensor<4x8xbf16>)
      outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %init = tensor.empty() : tensor<8x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x8xf32>) outs(%init : tensor<8x8xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    %s = arith.addf %t, %t : bf16
    linalg.yield %s : bf16
  } -> tensor<8x8xbf16>
  return %r : tensor<8x8xbf16>
}
