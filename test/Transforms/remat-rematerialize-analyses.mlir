// RUN: remat-opt %s --verify-diagnostics -o /dev/null \
// RUN:   --pass-pipeline="builtin.module(remat-memory-report{output=%t.json},func.func(remat-rematerialize,remat-verify-memory{budget=160}))"
// RUN: FileCheck %s --input-file=%t.json

// A plan without recomputations still reorders ops, so the memory analysis
// that remat-memory-report cached before remat-rematerialize must not survive
// it: remat-verify-memory has to see the new order's peak (156), not the old
// one (236).
//
// Resident: %x = 16 bytes. Program order a, b, sa, sb, r:
//   a: 16+100 = 116, b: 216, sa: a+b+sa = 16+220 = 236 (peak), sb: 156, r: 76.
// Planned order a, sa, b, sb, r:
//   a: 116, sa: 16+120 = 136, b: 16+120 = 136, sb: 16+140 = 156 (peak), r: 76.
// CHECK: "peak_bytes": 236

#big = #remat.cost<bytes = [100], flops = 4>
#small = #remat.cost<bytes = [20], flops = 4>
#fwd = #remat.phase<forward>
// expected-remark @below {{peak memory 156 bytes within the budget of 160 bytes}}
func.func @reorder_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #big, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  %b = math.exp %x {remat.cost = #big, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %sa = math.tanh %a {remat.cost = #small, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  %sb = math.tanh %b {remat.cost = #small, remat.phase = #fwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  %r = arith.addf %sa, %sb {remat.cost = #small, remat.phase = #fwd, remat.steps = array<i64: 4>} : tensor<4xf32>
  return %r : tensor<4xf32>
}
