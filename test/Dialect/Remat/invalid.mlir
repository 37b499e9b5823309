// RUN: remat-opt %s --split-input-file --verify-diagnostics

func.func @size_count_mismatch(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.cost' lists 2 result size(s) but the op has 1 result(s)}}
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [16, 16], flops = 4>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_bytes(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{remat.cost: bytes of result #0 must be non-negative, got -16}}
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [-16], flops = 4>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_flops(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{remat.cost: flops must be non-negative, got -4}}
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [16], flops = -4>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_time(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{remat.cost: time_ns must be non-negative, got -1}}
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [16], flops = 4, time_ns = -1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_roofline(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{remat.cost: roofline_ps must be non-negative, got -7}}
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [16], flops = 4, roofline_ps = -7>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @times_out_of_order(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{expected 'roofline_ps' or 'time_ns' (once each, in this order), got 'roofline_ps'}}
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [16], flops = 4, time_ns = 2, roofline_ps = 7>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @below {{'remat.cost_device' must name a device of the roofline cost model (a100, h100, h200), got "b200"}}
func.func @unknown_cost_device(%a: tensor<4xf32>) -> tensor<4xf32> attributes {remat.cost_device = "b200"} {
  return %a : tensor<4xf32>
}

// -----

func.func @cost_of_wrong_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.cost' must be a #remat.cost attribute, got 16 : i64}}
  %0 = arith.addf %a, %a {remat.cost = 16} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @phase_of_wrong_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.phase' must be a #remat.phase attribute, got "forward"}}
  %0 = arith.addf %a, %a {remat.phase = "forward"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_phase(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::remat::Phase to be one of: forward, backward}}
  // expected-error @+1 {{failed to parse Remat_PhaseAttr parameter 'value'}}
  %0 = arith.addf %a, %a {remat.phase = #remat.phase<sideways>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @keep_of_wrong_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.keep' must be a #remat.keep attribute, got true}}
  %0 = arith.addf %a, %a {remat.keep = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_attribute(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{unknown remat dialect attribute 'remat.bogus'}}
  %0 = arith.addf %a, %a {remat.bogus = 1} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
