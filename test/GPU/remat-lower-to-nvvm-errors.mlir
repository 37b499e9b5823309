// A chip LLVM's NVPTX backend does not know is an error when the pipeline is
// parsed, not PTX for a made-up target with exit code 0 (bad-input tour,
// issue 11).
// RUN: not remat-opt %s --remat-lower-to-nvvm="chip=sm_9999" 2>&1 | FileCheck %s
// RUN: not remat-opt %s --remat-lower-to-nvvm="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=AMD
// CHECK: remat-lower-to-nvvm: chip 'sm_9999' is not a GPU architecture that LLVM's NVPTX backend knows (e.g. sm_80, sm_90)
// CHECK-NOT: gpu.binary
// AMD: chip 'gfx90a' is not a GPU architecture
// Known chips still lower.
// RUN: remat-opt %s --remat-lower-to-nvvm="chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=OK
// OK: gpu.binary

func.func @step(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.add ins(%x, %y : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
