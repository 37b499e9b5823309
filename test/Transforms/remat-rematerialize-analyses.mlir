// RUN: remat-opt %s --verify-diagnostics -o /dev/null \
// RUN:   --pass-pipeline="builtin.module(remat-memory-report{output=%t.json},func.func(remat-rematerialize,remat-verify-memory{budget=130}))"
// RUN: FileCheck %s --input-file=%t.json

// A plan without recomputations still reorders ops, so the memory analysis
// that remat-memory-report cached before remat-rematerialize must not survive
// it: remat-verify-memory has to see the new order's peak (124), not the old
// one (220).
//
// Resident: %x = 16 bytes. Program order a, b, sa, sb, r:
//   a: 16+100 = 116, b: 216, sa: a+b+sa = 16+204 = 220 (peak), sb: 124, r: 28.
// Planned order a, sa, b, sb, r:
//   a: 116, sa: 16+104 = 120, b: 16+104 = 120, sb: 16+108 = 124 (peak), r: 28.
// CHECK: "peak_bytes": 220

#big = #remat.cost<bytes = [100], flops = 4>
#small = #remat.cost<bytes = [4], flops = 4>
#fwd = #remat.phase<forward>
// expected-remark @below {{peak memory 124 bytes within the budget of 130 bytes}}
func.func @reorder_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #big, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  %b = math.exp %x {remat.cost = #big, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %sa = math.tanh %a {remat.cost = #small, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  %sb = math.tanh %b {remat.cost = #small, remat.phase = #fwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  %r = arith.addf %sa, %sb {remat.cost = #small, remat.phase = #fwd, remat.steps = array<i64: 4>} : tensor<4xf32>
  return %r : tensor<4xf32>
}
