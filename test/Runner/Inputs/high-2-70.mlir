// A remat.high of 2^70 (does not fit its i64): a parse error at the value.
func.func @f(%a: tensor<4xi64> {remat.high = 1180591620717411303424 : i64}) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}
