// remat-gpu-run without a usable GPU: a clear message and a non-zero exit
// (status 3), never a crash. On a machine with a GPU these paths cannot be
// reached.
// UNSUPPORTED: cuda-gpu
// RUN: not remat-gpu-run %s --entry=double 2>&1 | FileCheck %s --check-prefix=NOGPU
// NOGPU: remat-gpu-run: error: {{cannot load the CUDA runtime library|no usable CUDA GPU}}

// With libcuda.so.1 being the toolkit's stub, cuInit fails inside our
// runtime library, which reports the driver error.
// RUN: %if remat-cuda-runtime && cuda-driver-stub %{ rm -rf %t.dir && mkdir -p %t.dir && ln -s %cuda_driver_stub %t.dir/libcuda.so.1 %}
// RUN: %if remat-cuda-runtime && cuda-driver-stub %{ env LD_LIBRARY_PATH=%t.dir not remat-gpu-run %s --entry=double 2>&1 | FileCheck %s --check-prefix=STUB %}
// STUB: remat-gpu-run: error: no usable CUDA GPU: CUDA error 34 (libcuda is the CUDA toolkit's stub, not a driver)

// Lowering needs no GPU.
// RUN: remat-gpu-run %s --entry=double --print-lowered | FileCheck %s --check-prefix=LOWERED
// LOWERED: llvm.func @double(
// LOWERED: gpu.binary @double_kernel

// Usage errors come before the GPU is touched.
// RUN: not remat-gpu-run %s --entry=missing 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: remat-gpu-run: error: no function named 'missing' in '{{.*}}remat-gpu-run-errors.mlir'
// RUN: not remat-gpu-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: remat-gpu-run: error: unsupported type tensor<?xf32> of argument #0 of 'dynamic': dynamic shapes are not supported
// RUN: not remat-gpu-run %s --entry=double --pipeline='bogus-pass' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: remat-gpu-run: error: invalid --pipeline 'bogus-pass'
// Sizes beyond 2^63 bytes, refused before lowering (the runners share the
// check: test/Runner/remat-run-errors.mlir).
// RUN: not remat-gpu-run %S/../Runner/Inputs/overflow-arg.mlir 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: remat-gpu-run: error: unsupported type tensor<4611686018427387904x4xf32> of argument #0 of 'step': it takes more than 2^63 bytes, more than remat-gpu-run can allocate

func.func @double(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.add ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
