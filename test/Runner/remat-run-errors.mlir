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
// HALF: remat-run: error: unsupported type tensor<4xf16> of argument #0 of 'half': element type must be bf16, f32, f64, i32 or i64

// RUN: not remat-run %s --entry=index_result 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: remat-run: error: unsupported type index of result #0 of 'index_result': element type must be bf16, f32, f64, i32 or i64

// RUN: not remat-run %s --entry=unranked 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: remat-run: error: unsupported type tensor<*xf32> of argument #0 of 'unranked': only ranked tensors and memrefs are supported

// RUN: not remat-run %s --entry=ok --pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: remat-run: error: invalid --pipeline 'builtin.module(no-such-pass)': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline

// RUN: not remat-run %s --entry=ok --pipeline=canonicalize 2>&1 | FileCheck %s --check-prefix=NOTLLVM
// NOTLLVM: remat-run: error: after lowering, 'ok' is not an llvm.func: the pipeline must lower to the LLVM dialect

// RUN: not remat-run %s --entry=ok --repeat=0 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: remat-run: error: --repeat must be at least 1

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
