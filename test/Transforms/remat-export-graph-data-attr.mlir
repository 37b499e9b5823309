// Data arguments that do not come first are marked `remat.data` (the
// importer marks its input, labels and dropout masks so): the batch is then
// read from the marked arguments, whatever data-args says, and they are the
// graph's inputs.
//
// RUN: remat-opt %s --remat-annotate-costs --remat-infer-phases --remat-export-graph=output=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
//
// Without the mark, data-args=1 takes the leading %w as the data: its
// leading dimension (8) would be the batch. The mark is what makes it 4.
// RUN: sed -e 's/ {remat.data}//' %s | remat-opt --remat-annotate-costs --remat-infer-phases --remat-export-graph=output=%t.unmarked.json -o /dev/null
// RUN: FileCheck %s --check-prefix=UNMARKED --input-file=%t.unmarked.json

// CHECK:      "batch": 4,
// CHECK:      "bytes_per_sample": 0,
// CHECK:      "kind": "param",
// CHECK-NEXT: "name": "arg0"
// CHECK:      "bytes_per_sample": 32,
// CHECK:      "kind": "input",
// CHECK-NEXT: "name": "arg1"
// CHECK:      "bytes_per_sample": 64,
// CHECK-NEXT: "cost":
// UNMARKED:      "batch": 8,
// UNMARKED:      "kind": "input",
// UNMARKED-NEXT: "name": "arg0"
func.func @step(%w: tensor<8x16xf32>, %x: tensor<4x8xf32> {remat.data})
    -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = math.tanh %y : tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}
