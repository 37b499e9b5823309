// The round trip through remat-solve: export the problem graph, solve it
// outside, apply the saved schedule. The result must be the IR that solving
// in the pass with the same solver and budget gives (diff), plan included.
//
// RUN: remat-opt %s --remat-annotate-costs --remat-infer-phases --remat-export-graph=output=%t.graph.json -o %t.prepared.mlir
// RUN: FileCheck %s --check-prefix=GRAPH --input-file=%t.graph.json
// RUN: remat-solve %t.graph.json --solver=brute-force --budget=96 --quiet -o %t.b96.json
// RUN: FileCheck %s --check-prefix=SCHEDULE --input-file=%t.b96.json
// RUN: remat-opt %t.prepared.mlir --remat-select-checkpoints=schedule=%t.b96.json --remat-rematerialize -o %t.applied.mlir 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// RUN: remat-opt %t.prepared.mlir --remat-select-checkpoints="solver=brute-force budget=96" --remat-rematerialize -o %t.solved.mlir 2>/dev/null
// RUN: diff %t.applied.mlir %t.solved.mlir
// RUN: FileCheck %s --check-prefix=APPLIED --input-file=%t.applied.mlir
//
// min-budget: the file's mode and (absent) budget are recorded as solving
// in the pass would record them.
// RUN: remat-solve %t.graph.json --solver=brute-force --mode=min-budget --quiet -o %t.minb.json
// RUN: remat-opt %t.prepared.mlir --remat-select-checkpoints=schedule=%t.minb.json -o %t.minb.applied.mlir 2>/dev/null
// RUN: remat-opt %t.prepared.mlir --remat-select-checkpoints="solver=brute-force mode=min-budget" -o %t.minb.solved.mlir 2>/dev/null
// RUN: diff %t.minb.applied.mlir %t.minb.solved.mlir
// RUN: FileCheck %s --check-prefix=MINB --input-file=%t.minb.applied.mlir
//
// Through the pipeline: export-graph= stops after writing the graph ('-' is
// stdout, the IR goes to -o); schedule= replaces solving.
// RUN: remat-opt %s --remat-pipeline="export-graph=-" -o /dev/null | remat-solve --solver=brute-force --budget=96 --quiet -o %t.piped.json
// RUN: diff %t.piped.json %t.b96.json --ignore-matching-lines=solve_seconds
// RUN: remat-opt %s --remat-pipeline="schedule=%t.piped.json" 2>&1 | FileCheck %s --check-prefix=PIPE
//
// A real step (examples/cnn.mlir, 97 nodes, views included): chen-greedy's
// least-budget plan recomputes activations; the fingerprint survives the
// JSON round trip of every size and cost.
// RUN: remat-opt %S/../../examples/cnn.mlir --remat-pipeline="export-graph=%t.cnn.json" -o /dev/null
// RUN: remat-solve %t.cnn.json --solver=chen-greedy --mode=min-budget --quiet -o %t.cnn.schedule.json
// RUN: remat-opt %S/../../examples/cnn.mlir --remat-pipeline="schedule=%t.cnn.schedule.json" -o %t.cnn.applied.mlir 2>/dev/null
// RUN: remat-opt %S/../../examples/cnn.mlir --remat-pipeline="solver=chen-greedy mode=min-budget" -o %t.cnn.solved.mlir 2>/dev/null
// RUN: diff %t.cnn.applied.mlir %t.cnn.solved.mlir
// RUN: FileCheck %s --check-prefix=CNN --input-file=%t.cnn.applied.mlir

// The chain of remat-select-checkpoints.mlir (16 bytes per tensor, 4 flops
// per op): arguments are nodes 0 and 1, the six ops nodes 2-7, named after
// their op and location; the outputs are %c (4) and %ga (7). Batch
// scaling from the shapes: the batch is the 4 floats of %x (4 bytes a
// sample); the parameter %w is fixed; every op's tensor carries the batch
// (4 bytes and 1 flop a sample).
// GRAPH:      "batch": 4,
// GRAPH:      "name": "chain",
// GRAPH:      "bytes_per_sample": 4,
// GRAPH:      "kind": "input",
// GRAPH-NEXT: "name": "arg0"
// GRAPH:      "bytes_per_sample": 0,
// GRAPH:      "kind": "param",
// GRAPH-NEXT: "name": "arg1"
// GRAPH:      "bytes_per_sample": 4,
// GRAPH-NEXT: "cost": 4,
// GRAPH-NEXT: "cost_per_sample": 1,
// GRAPH:      "id": 2,
// GRAPH-NEXT: "kind": "forward",
// GRAPH-NEXT: "name": "math.tanh#2@{{.*}}remat-export-graph.mlir:[[# @LINE + 43]]:8"
// GRAPH:      "id": 7,
// GRAPH-NEXT: "kind": "backward",
// GRAPH-NEXT: "name": "arith.mulf#7@{{.*}}remat-export-graph.mlir:[[# @LINE + 45]]:9"
// GRAPH:      "outputs": [
// GRAPH-NEXT:   4,
// GRAPH-NEXT:   7
// GRAPH-NEXT: ]

// At 96 bytes brute-force recomputes %c (node 4) at the end; the result
// names the graph it solved.
// SCHEDULE:      "status": "optimal",
// SCHEDULE:      {"op": "free", "node": 2},
// SCHEDULE-NEXT: {"op": "compute", "node": 4}
// SCHEDULE-NEXT: ],
// SCHEDULE:      "graph": {"name": "chain", "nodes": 8, "structure": "{{[0-9a-f]+}}", "bytes": "{{[0-9a-f]+}}", "cost": "{{[0-9a-f]+}}"}

// REMARK: remark: remat plan: schedule '{{.*}}b96.json' of solver 'brute-force' (min-compute) optimal, gap 0.0%; predicted peak 96 bytes (budget 96, checkpoint-all 112); recomputes 1 op(s), compute overhead 16.7%

// APPLIED-LABEL: func.func @chain
// APPLIED-SAME:    remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24, lower_bound = 28>
// APPLIED:         %[[A:.*]] = math.tanh %arg0
// APPLIED-NEXT:    %[[B:.*]] = math.tanh %[[A]]
// APPLIED-NEXT:    %[[C:.*]] = math.tanh %[[B]]
// APPLIED-NEXT:    %[[GC:.*]] = arith.mulf %[[C]], %arg1
// APPLIED-NEXT:    %[[GB:.*]] = arith.mulf %[[GC]], %[[B]]
// APPLIED-NEXT:    %[[GA:.*]] = arith.mulf %[[GB]], %[[A]]
// APPLIED-NEXT:    %[[BB:.*]] = remat.barrier %[[B]]
// APPLIED-NEXT:    %[[C2:.*]] = math.tanh %[[BB]] {{.*}}remat.recomputed
// APPLIED-NEXT:    return %[[C2]], %[[GA]]

// 80 bytes is the least any schedule needs (see remat-select-checkpoints.mlir);
// MINB: remat.plan = #remat.plan<solver = "brute-force", mode = "min-budget", status = "optimal", budget = 80, predicted_peak = 80

// CNN: remat.plan = #remat.plan<solver = "chen-greedy", mode = "min-budget", status = "feasible", budget = 34632, predicted_peak = 34612, baseline_peak = 38708, {{.*}}arena = 34632>
// CNN: remat.recomputed

// PIPE: remark: remat plan: schedule '{{.*}}piped.json' of solver 'brute-force' (min-compute) optimal
// PIPE: remark: peak memory 96 bytes within the budget of 96 bytes
// PIPE: remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96
// PIPE-COUNT-1: remat.recomputed

func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
