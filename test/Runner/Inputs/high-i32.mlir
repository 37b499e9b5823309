// A remat.high of 5e9 on an i32 argument: [0, 5e9) does not fit the type.
func.func @high_i32(%a: tensor<4xi32> {remat.high = 5000000000 : i64}) -> tensor<4xi32> {
  return %a : tensor<4xi32>
}
