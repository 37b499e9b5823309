// RUN: remat-opt %s --split-input-file --verify-diagnostics

// `remat.high = N : i64` on an integer argument: the runners draw its values
// from [0, N), so N is a positive i64 and [0, N) fits the element type
// (read as signed: i32 holds [0, 2^31); i1 holds 0 and 1).

// expected-error @below {{'remat.high' of argument #0 must be a positive i64, got 1.500000e+00 : f64}}
func.func @not_integer(%a: tensor<4xi64> {remat.high = 1.5 : f64}) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}

// -----

// expected-error @below {{'remat.high' of argument #1 must be a positive i64, got 1180591620717411303424 : i128}}
func.func @i128_typed(%a: tensor<4xi64>, %b: tensor<4xi64> {remat.high = 1180591620717411303424 : i128}) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}

// -----

// expected-error @below {{'remat.high' of argument #0 must be a positive i64, got 5 : i32}}
func.func @i32_typed(%a: tensor<4xi32> {remat.high = 5 : i32}) -> tensor<4xi32> {
  return %a : tensor<4xi32>
}

// -----

// expected-error @below {{'remat.high' of argument #0 must be a positive i64, got 0 : i64}}
func.func @zero(%a: tensor<4xi64> {remat.high = 0 : i64}) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}

// -----

// expected-error @below {{'remat.high' of argument #0 must be a positive i64, got -3 : i64}}
func.func @negative(%a: tensor<4xi64> {remat.high = -3 : i64}) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}

// -----

// 2^31 + 1: the value 2^31 does not fit a signed i32.
// expected-error @below {{'remat.high' = 2147483649 of argument #0 does not fit 'tensor<4xi32>': its values [0, high) need high <= 2147483648}}
func.func @too_large_i32(%a: tensor<4xi32> {remat.high = 2147483649 : i64}) -> tensor<4xi32> {
  return %a : tensor<4xi32>
}

// -----

// expected-error @below {{'remat.high' = 3 of argument #0 does not fit 'memref<4xi1>': its values [0, high) need high <= 2}}
func.func @too_large_i1(%a: memref<4xi1> {remat.high = 3 : i64}) {
  return
}

// -----

// A declaration has no block arguments; its argument types still count.
// expected-error @below {{'remat.high' = 129 of argument #0 does not fit 'i8': its values [0, high) need high <= 128}}
func.func private @too_large_i8_decl(i8 {remat.high = 129 : i64})

// -----

// expected-error @below {{'remat.high' = 257 of argument #0 does not fit 'tensor<2xui8>': its values [0, high) need high <= 256}}
func.func private @too_large_ui8_decl(tensor<2xui8> {remat.high = 257 : i64})

// -----

// expected-error @below {{'remat.high' of argument #0 must be on an integer argument, got 'tensor<4xf32>'}}
func.func @on_float(%a: tensor<4xf32> {remat.high = 10 : i64}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{'remat.high' of argument #0 must be on an integer argument, got 'index'}}
func.func @on_index(%a: index {remat.high = 10 : i64}) -> index {
  return %a : index
}
