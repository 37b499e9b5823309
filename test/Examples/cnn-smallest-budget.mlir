// REQUIRES: coinor
// The budget remat-select-checkpoints names as "the smallest feasible
// budget" is one the same solver meets when asked at exactly that budget.
// On this conv step LP rounding finds a 33044-byte plan when asked at 34606
// bytes but nothing when asked at 33044: the error used to name 33044.
// RUN: not remat-opt %examples/cnn.mlir --remat-infer-phases --remat-annotate-costs --remat-select-checkpoints="solver=checkmate-lp-rounding budget=10" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// ERROR: the smallest feasible budget is 34606 bytes
// RUN: remat-opt %examples/cnn.mlir --remat-infer-phases --remat-annotate-costs --remat-select-checkpoints="solver=checkmate-lp-rounding budget=34606" | FileCheck %s --check-prefix=AGAIN
// AGAIN: status = "feasible", budget = 34606, predicted_peak = 33044
