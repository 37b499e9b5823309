// REQUIRES: coinor
// The budget remat-select-checkpoints names as "the smallest feasible
// budget" is one the same solver meets when asked at exactly that budget.
// On this conv step LP rounding once found a 33044-byte plan when asked at
// 34606 bytes but nothing when asked at 33044: the error used to name 33044.
// The number itself depends on how much of the time limit each probe of the
// search gets (34606 or 34607 under load), so the test checks the contract,
// not the number: the budget named is met when asked, and it is above the
// infeasible one.
// RUN: not remat-opt %examples/cnn.mlir --remat-infer-phases --remat-annotate-costs --remat-select-checkpoints="solver=checkmate-lp-rounding budget=10" -o /dev/null 2>%t.err
// RUN: FileCheck %s --check-prefix=ERROR --input-file=%t.err
// ERROR: budget of 10 bytes is infeasible for solver 'checkmate-lp-rounding'
// ERROR-SAME: the smallest feasible budget is {{[1-9][0-9]+}} bytes
// RUN: sh -c 'budget=$(sed -n "s/.*the smallest feasible budget is \([0-9]*\) bytes.*/\1/p" %t.err); echo "named $budget"; remat-opt %examples/cnn.mlir --remat-infer-phases --remat-annotate-costs --remat-select-checkpoints="solver=checkmate-lp-rounding budget=$budget"' | FileCheck %s --check-prefix=AGAIN
// AGAIN: named [[#BUDGET:]]
// AGAIN: status = "feasible", budget = [[#BUDGET]], predicted_peak =
