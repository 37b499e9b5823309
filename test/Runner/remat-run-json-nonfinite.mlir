// remat-run --json stays JSON when a result holds a NaN or an infinity
// (docs/Running.md): JSON has neither as a number, so the sums and the
// printed values write them as the strings "nan", "inf" and "-inf", which
// Python's float() reads back; a strict parser (NaN literals refused)
// accepts the report. The text report prints them as C does.
// RUN: remat-run %s --json --print-results > %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: python3 -c "import json, sys; json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit('bare ' + c))" %t.json
// RUN: remat-run %s --print-results | FileCheck %s --check-prefix=TEXT

// JSON: "sum": "nan",
// JSON-NEXT: "abs_sum": "nan",
// JSON: "values": [
// JSON-NEXT: "nan",
// JSON-NEXT: "inf",
// JSON-NEXT: "-inf",
// JSON-NEXT: 2
// JSON-NEXT: ]

// TEXT: result #0: tensor<4xf32> sum=nan abs_sum=nan
// TEXT-NEXT: values: [{{-?}}nan, inf, -inf, 2]

func.func @nonfinite(%x: tensor<4xf32>) -> tensor<4xf32> {
  %num = arith.constant dense<[0.0, 1.0, -1.0, 2.0]> : tensor<4xf32>
  %den = arith.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
  %q = arith.divf %num, %den : tensor<4xf32>
  return %q : tensor<4xf32>
}
