// Bad input to remat-run: a clear error on stderr and a non-zero exit.

// RUN: not remat-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: remat-run: error: cannot open '{{.*}}does-not-exist.mlir': no such file

// RUN: not remat-run %S/Inputs/parse-error.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: parse-error.mlir:2:10: error: use of undeclared SSA value name
// PARSE: remat-run: error: could not parse '{{.*}}parse-error.mlir'

// RUN: not remat-run %S/Inputs/only-main.mlir 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: remat-run: error: no entry function: '{{.*}}only-main.mlir' has no public func.func with a body other than 'main' (use --entry)

// RUN: not remat-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=NOSUCH
// NOSUCH: remat-run: error: no function named 'nope' in '{{.*}}remat-run-errors.mlir'

// RUN: not remat-run %s --entry=declared 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: remat-run: error: entry 'declared' has no body

// RUN: not remat-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: remat-run: error: unsupported type tensor<?xf32> of argument #1 of 'dynamic': dynamic shapes are not supported (remat-run builds inputs from static shapes)

// RUN: not remat-run %s --entry=half 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: remat-run: error: unsupported type tensor<4xf16> of argument #0 of 'half': element type must be bf16, f32, f64, i1, i32 or i64

// RUN: not remat-run %s --entry=index_result 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: remat-run: error: unsupported type index of result #0 of 'index_result': element type must be bf16, f32, f64, i1, i32 or i64

// RUN: not remat-run %s --entry=unranked 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: remat-run: error: unsupported type tensor<*xf32> of argument #0 of 'unranked': only ranked tensors and memrefs are supported

// RUN: not remat-run %s --entry=ok --pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: remat-run: error: invalid --pipeline 'builtin.module(no-such-pass)': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline

// RUN: not remat-run %s --entry=ok --pipeline=canonicalize 2>&1 | FileCheck %s --check-prefix=NOTLLVM
// NOTLLVM: remat-run: error: after lowering, 'ok' is not an llvm.func: the pipeline must lower to the LLVM dialect

// RUN: not remat-run %s --entry=ok --repeat=0 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: remat-run: error: --repeat must be at least 1

// Sizes beyond 2^63 bytes are refused, never wrapped around (the bad
// inputs open/overflow_arg.mlir, which ran with input_bytes 0 and exit 0,
// and c18_overflow_shape.mlir, which aborted in malloc): in the signature,
// inside the step (located), and values larger than the machine's memory
// (whose allocation would fail inside the JIT'd code, which does not check).
// RUN: not remat-run %S/Inputs/overflow-arg.mlir 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not remat-run %S/Inputs/overflow-shape.mlir --pipeline='builtin.module(func.func(convert-elementwise-to-linalg),remat-lower-to-cpu)' 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not remat-run %S/Inputs/overflow-shape.mlir --json 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: remat-run: error: unsupported type tensor<4611686018427387904x4xf32> of argument #0 of 'step': it takes more than 2^63 bytes, more than remat-run can allocate
// RUN: not remat-run %s --entry=huge_result 2>&1 | FileCheck %s --check-prefix=HUGERESULT
// HUGERESULT: remat-run: error: unsupported type tensor<2305843009213693952x2xf64> of result #0 of 'huge_result': it takes more than 2^63 bytes
// RUN: not remat-run %s --entry=huge_temporary 2>&1 | FileCheck %s --check-prefix=HUGETEMP
// HUGETEMP: remat-run-errors.mlir:{{[0-9]+}}:8: error: result #0 of type 'tensor<4611686018427387904x4xf32>' takes more than 2^63 bytes: it cannot be allocated
// HUGETEMP: remat-run: error: '{{.*}}remat-run-errors.mlir' holds values too large to allocate (see the diagnostics above)
// RUN: not remat-run %s --entry=beyond_memory 2>&1 | FileCheck %s --check-prefix=BEYOND
// BEYOND: remat-run-errors.mlir:{{[0-9]+}}:8: error: result #0 of type 'tensor<288230376151711744xf32>' takes 1152921504606846976 bytes, more than the {{[0-9]+}} bytes of memory of this machine
// BEYOND: remat-run: error: '{{.*}}remat-run-errors.mlir' holds values too large to allocate

func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

func.func @dynamic(%x: tensor<4xf32>, %y: tensor<?xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  return %x : tensor<4xf16>
}

func.func @index_result() -> index {
  %c = arith.constant 0 : index
  return %c : index
}

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @huge_result(%x: tensor<4xf32>) -> tensor<2305843009213693952x2xf64> {
  %e = tensor.empty() : tensor<2305843009213693952x2xf64>
  return %e : tensor<2305843009213693952x2xf64>
}

// 2^62 x 4 floats: 2^66 bytes.
func.func @huge_temporary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4611686018427387904x4xf32>
  %s = tensor.extract_slice %e[0, 0] [1, 4] [1, 1] : tensor<4611686018427387904x4xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

// 2^58 floats: 2^60 bytes (1 EiB), more than any machine's memory.
func.func @beyond_memory(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<288230376151711744xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<288230376151711744xf32>) -> tensor<288230376151711744xf32>
  %s = tensor.extract_slice %f[0] [4] [1] : tensor<288230376151711744xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}
