// bf16 arguments and results: remat-run fills them (the nearest bfloat16 to
// the float of docs/Running.md's value, ties to even, as PyTorch converts),
// prints them, and counts 2 bytes an element; the CPU lowering computes
// bf16 arithmetic (LLVM rounds every operation to bfloat16).
//
// Each buffer on its own (arena=false), so that the peak counts the bf16
// bytes themselves, not the arena's 16-byte alignment.
// RUN: remat-run %s --print-results \
// RUN:   --pipeline='builtin.module(remat-lower-to-cpu{arena=false})' | FileCheck %s
// RUN: remat-run %s --json \
// RUN:   --pipeline='builtin.module(remat-lower-to-cpu{arena=false})' | FileCheck %s --check-prefix=JSON

// x[i] = sin(0.1 i) / 2 and y[i] = sin(0.1 i + 1) / 2 in bf16:
//   x = [0, 0.0498046875, 0.09912109375, 0.1474609375]
//   y = [0.419921875, 0.4453125, 0.466796875, 0.482421875]
// x * y + x, each operation rounded to bf16 (PyTorch's bf16 `x * y + x`):
//   [0, 0.072265625, 0.1455078125, 0.21875], sum 0.4365234375.
// Heap: the 4-element bf16 result, 8 bytes; the inputs 2 x 8 bytes.
// (printed with 9 significant digits).
// CHECK:      result #0: tensor<4xbf16> sum=0.436523438 abs_sum=0.436523438
// CHECK-NEXT:   values: [0, 0.072265625, 0.145507812, 0.21875]
// CHECK-NEXT: result #1: tensor<bf16> sum=0.0498046875
// CHECK-NEXT:   values: [0.0498046875]
// CHECK-NEXT: peak_bytes: 10{{$}}
// CHECK:      input_bytes: 16 (allocated by remat-run, not counted)
// JSON: "peak_bytes": 10,
#id = affine_map<(d0) -> (d0)>
func.func @bf16_step(%x: tensor<4xbf16>, %y: tensor<4xbf16>)
    -> (tensor<4xbf16>, tensor<bf16>) {
  %init = tensor.empty() : tensor<4xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4xbf16>, tensor<4xbf16>)
      outs(%init : tensor<4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %m = arith.mulf %a, %b : bf16
    %s = arith.addf %m, %a : bf16
    linalg.yield %s : bf16
  } -> tensor<4xbf16>
  %c1 = arith.constant 1 : index
  %e = tensor.extract %x[%c1] : tensor<4xbf16>
  %x1 = tensor.from_elements %e : tensor<bf16>
  return %r, %x1 : tensor<4xbf16>, tensor<bf16>
}
