// RUN: split-file --leading-lines %s %t
//
// Export: the module must name one function; the function must be prepared.
// RUN: not remat-opt %t/two.mlir --remat-export-graph -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not remat-opt %t/two.mlir --remat-export-graph=function=nope -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not remat-opt %t/two.mlir --remat-annotate-costs --remat-infer-phases --remat-export-graph="function=chain output=%t/missing-dir/g.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: remat-opt %t/unprepared.mlir --remat-export-graph --verify-diagnostics -o /dev/null
//
// Schedules to apply to @chain: its own at 96 bytes, one for the graph of
// another function, one for the same structure with wider tensors, an
// infeasible one and one of mode max-batch.
// RUN: remat-opt %t/mismatch.mlir --remat-pipeline="export-graph=%t/chain.json" -o /dev/null
// RUN: remat-solve %t/chain.json --solver=brute-force --budget=96 --quiet -o %t/b96.json
// RUN: remat-solve %t/chain.json --solver=brute-force --budget=64 --quiet -o %t/b64.json
// The exported graph carries its batch scaling (4 samples of one float in
// %x; %w a parameter), so max-batch answers on it as exported.
// RUN: remat-solve %t/chain.json --solver=brute-force --budget=200 --mode=max-batch --quiet -o %t/batch.json
// RUN: remat-opt %t/two.mlir --remat-annotate-costs --remat-infer-phases --remat-export-graph="function=other output=%t/other.json" -o /dev/null
// RUN: remat-solve %t/other.json --quiet -o %t/other.schedule.json
// RUN: remat-opt %t/wide.mlir --remat-pipeline="export-graph=%t/wide.json" -o /dev/null
// RUN: remat-solve %t/wide.json --quiet -o %t/wide.schedule.json
//
// RUN: cd %t && remat-opt mismatch.mlir --remat-pipeline="schedule=other.schedule.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt sizes.mlir --remat-pipeline="schedule=wide.schedule.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt malformed.mlir --remat-pipeline="schedule=malformed.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt syntax.mlir --remat-pipeline="schedule=syntax.json" --verify-diagnostics -o /dev/null
// JSON nested 50,000 deep is refused before parsing (it would overflow the
// stack of LLVM's recursive parser and destructor).
// RUN: python3 -c "print('{\"steps\": ' + '[' * 50000 + ']' * 50000 + '}')" > %t/deep.json
// RUN: cd %t && remat-opt deep.mlir --remat-pipeline="schedule=deep.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt infeasible.mlir --remat-pipeline="schedule=b64.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt batch.mlir --remat-pipeline="schedule=batch.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt unreadable.mlir --remat-pipeline="schedule=missing.json" --verify-diagnostics -o /dev/null
// RUN: cd %t && remat-opt over-budget.mlir --remat-pipeline="schedule=b96.json budget=90" --verify-diagnostics -o /dev/null

// TWO: error: remat-export-graph: 2 functions with a body; choose one with function=<name>: other chain
// NONE: error: remat-export-graph: no function named 'nope' with a body
// OPEN: error: remat-export-graph: cannot open output file '{{.*}}missing-dir/g.json': {{.*}}

//--- two.mlir
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  %b = arith.mulf %a, %a : tensor<4xf32>
  return %b : tensor<4xf32>
}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

//--- unprepared.mlir
func.func @unprepared(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{op has no 'remat.cost' attribute; run --remat-annotate-costs before planning rematerialization}}
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

//--- mismatch.mlir
// expected-error @below {{schedule 'other.schedule.json' was computed for another graph: graph 'other' differs from this function's graph 'chain' in the node count (3 vs 8); export this function's graph with --remat-export-graph and solve it again}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

//--- wide.mlir
// @chain on tensor<8xf32>: the same structure, twice the bytes.
func.func @wide(%x: tensor<8xf32>, %w: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = math.tanh %x : tensor<8xf32>
  %b = math.tanh %a : tensor<8xf32>
  %c = math.tanh %b : tensor<8xf32>
  %gc = arith.mulf %c, %w : tensor<8xf32>
  %gb = arith.mulf %gc, %b : tensor<8xf32>
  %ga = arith.mulf %gb, %a : tensor<8xf32>
  return %c, %ga : tensor<8xf32>, tensor<8xf32>
}

//--- sizes.mlir
// expected-error @below {{schedule 'wide.schedule.json' was computed for another graph: graph 'wide' differs from this function's graph 'chain' in the node sizes (bytes)}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

//--- malformed.json
{"status": "optimal",
 "steps": [{"op": "compute", "node": 2}, {"op": "compute", "node": "3"}],
 "stats": {"solver": "brute-force", "mode": "min-compute", "budget": 96},
 "graph": {"name": "chain", "nodes": 8, "structure": "0000000000000000",
           "bytes": "0000000000000000", "cost": "0000000000000000"}}

//--- malformed.mlir
// The JSON is checked before the fingerprint: the error names the path.
// expected-error @below {{malformed schedule 'malformed.json': steps[1].node: expected an integer}}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

//--- syntax.json
{"status": "optimal", "steps": [

//--- syntax.mlir
// expected-error @below {{malformed schedule 'syntax.json': invalid JSON [}}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

//--- deep.mlir
// expected-error @below {{malformed schedule 'deep.json': JSON nested 50001 levels deep (from 1:110); at most 100 levels are accepted}}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

//--- infeasible.mlir
// 80 bytes is the least any schedule of @chain needs.
// expected-error @below {{schedule 'b64.json' holds no plan: its status is 'infeasible': proven: the budget of 64 bytes is below 80 bytes, a lower bound on every schedule's peak}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

//--- batch.mlir
// expected-error @below {{schedule 'batch.json' was solved in mode 'max-batch'; only min-compute, min-peak and min-budget plans apply to the IR}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

//--- unreadable.mlir
// expected-error @below {{cannot read schedule 'missing.json': No such file or directory}}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

//--- over-budget.mlir
// The schedule peaks at 96 bytes; the budget given wins over the file's.
// expected-error @below {{schedule 'b96.json' peaks at 96 bytes, over the budget of 90 bytes}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
