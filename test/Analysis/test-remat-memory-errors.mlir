// RUN: remat-opt %s --split-input-file --test-remat-memory --verify-diagnostics -o /dev/null
// RUN: not remat-opt %s --split-input-file --test-remat-memory=require-costs -o /dev/null 2>&1 | FileCheck %s --check-prefix=REQUIRE
// RUN: not remat-opt %s --split-input-file --test-remat-memory=function=missing -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING

// Unsupported input is a located error, never a guess.

func.func @dynamic_alloc(%n: index) {
  // expected-error @below {{'memref.alloc' op allocates memref<?xf32>, which has no static size: the memory analysis needs static shapes, a 'remat.cost' size hint or a dynamic-size hint}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

func.func @dynamic_tensor(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{'linalg.exp' op result #0 of type tensor<?xf32> has no 'remat.cost' attribute and no static size: the memory analysis needs static shapes or a cost}}
  %a = linalg.exp ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
  return %a : tensor<?xf32>
}

// -----

// A nested dynamic allocation is an error too.
func.func @nested_dynamic_alloc(%n: index, %c: i1) {
  scf.if %c {
    // expected-error @below {{'memref.alloc' op allocates memref<?xi8>}}
    %a = memref.alloc(%n) : memref<?xi8>
  }
  return
}

// -----

// expected-error @below {{'func.func' op has a body of 2 blocks: the memory analysis supports single-block bodies (structured control flow) only}}
func.func @blocks(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  return
}

// -----

// With require-costs, a tensor op without `remat.cost` is an error (in the
// first RUN line it falls back to its type size: no diagnostic).
// REQUIRE: error: 'linalg.exp' op produces a tensor but has no 'remat.cost' attribute (run --remat-annotate-costs first)
// MISSING: error: test-remat-memory: no function named 'missing' with a body in the module
// Fallback: %x = 16 resident, %a = 4 x f32 = 16 bytes: peak 16 + 16 = 32.
// expected-remark @below {{peak = 32 bytes at #0 linalg.exp; resident = 16 bytes; total = 32 bytes}}
// expected-remark @below {{live at peak: %arg0 (16), %0 (16)}}
func.func @no_cost(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Sizes that overflow int64_t are an error, never a wrapped-around peak.
// expected-error @below {{'func.func' op brings the sizes of the function's buffers to more than 2^62 bytes (4 EiB): sizes this large cannot be represented}}
func.func @overflowing_shape(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %y = math.exp %x : tensor<4611686018427387904x4xf32>
  return %y : tensor<4611686018427387904x4xf32>
}

// -----

func.func @overflowing_costs(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = math.exp %x {remat.cost = #remat.cost<bytes = [3000000000000000000], flops = 64>} : tensor<64xf32>
  // expected-error @below {{'math.tanh' op brings the sizes of the function's buffers to more than 2^62 bytes (4 EiB)}}
  %b = math.tanh %a {remat.cost = #remat.cost<bytes = [3000000000000000000], flops = 64>} : tensor<64xf32>
  %c = arith.addf %a, %b {remat.cost = #remat.cost<bytes = [256], flops = 64>} : tensor<64xf32>
  return %c : tensor<64xf32>
}
