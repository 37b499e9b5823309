// RUN: remat-opt %s --remat-annotate-costs="profile=%S/Inputs/remat-annotate-costs-profile.json" \
// RUN:   | FileCheck %s

// Profile errors name the file and, for a bad entry, its index.
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.missing.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: error: profile '{{.*}}.missing.json': cannot read the file: {{[Nn]}}o such file or directory

// RUN: echo '{"ops": [' > %t.truncated.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.truncated.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: profile '{{.*}}.truncated.json': invalid JSON [{{[0-9]+}}:{{[0-9]+}}, byte={{[0-9]+}}]: {{.+}}

// RUN: echo '[1, 2]' > %t.array.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.array.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTOBJECT
// NOTOBJECT: error: profile '{{.*}}.array.json': expected a JSON object with an "ops" array at the top level

// RUN: echo '{"ops": [{"name": "a", "time_ns": 1}, {"name": "b"}]}' > %t.notime.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.notime.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTIME
// NOTIME: error: profile '{{.*}}.notime.json': ops[1]: missing "time_ns"

// RUN: echo '{"ops": [{"name": "a", "time_ns": -5}]}' > %t.negative.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.negative.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: profile '{{.*}}.negative.json': ops[0].time_ns: must be a non-negative number below 9e18

// A time beyond a double's range is out of range, not "not a number".
// RUN: echo '{"ops": [{"name": "a", "time_ns": 1e400}]}' > %t.huge.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.huge.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HUGE
// HUGE: error: profile '{{.*}}.huge.json': ops[0].time_ns: number out of range (beyond 1.8e308)

// JSON nested 50,000 deep is refused before parsing (LLVM's parser and
// destructor recurse once per level), as arrays or as objects.
// RUN: python3 -c "print('{\"ops\": ' + '[' * 50000 + ']' * 50000 + '}')" > %t.deep.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.deep.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEP
// DEEP: error: profile '{{.*}}.deep.json': JSON nested 50001 levels deep (from 1:108); at most 100 levels are accepted
// RUN: python3 -c "print('{\"a\": ' * 50000 + '1' + '}' * 50000)" > %t.deepobject.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.deepobject.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEPOBJECT
// DEEPOBJECT: error: profile '{{.*}}.deepobject.json': JSON nested 50000 levels deep (from 1:{{[0-9]+}}); at most 100 levels are accepted

// RUN: echo '{"ops": [{"name": "a", "loc": "f:1:1", "time_ns": 1}]}' > %t.both.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.both.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTH
// BOTH: error: profile '{{.*}}.both.json': ops[0]: expected exactly one of "loc" and "name"

// RUN: echo '{"ops": [{"loc": "f:1:1", "time_ns": 1}, {"loc": "f:1:1", "time_ns": 2}]}' > %t.dup.json
// RUN: not remat-opt %s --remat-annotate-costs="profile=%t.dup.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DUPLICATE
// DUPLICATE: error: profile '{{.*}}.dup.json': ops[1]: duplicate entry for "f:1:1"

// CHECK-LABEL: func.func @profiled
func.func @profiled(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>,
        tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  // Exact location "model.py:12:3" (1500) beats the op-name entry
  // "linalg.matmul" (1200). FLOPs stay: 2*8*8*16 = 2048; 8*8*4 = 256 bytes.
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [256], flops = 2048, time_ns = 1500>}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32> loc("model.py":12:3)
  // No column-exact entry: "model.py:20" matches any column of line 20.
  // CHECK: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [256], flops = 64, time_ns = 300>}
  %1 = arith.addf %0, %0 : tensor<8x8xf32> loc("model.py":20:7)
  // Matched by its NameLoc name.
  // CHECK: math.exp {{.*}} {remat.cost = #remat.cost<bytes = [256], flops = 64, time_ns = 800>}
  %2 = math.exp %1 : tensor<8x8xf32> loc("relu1")
  // A name inside a fused location; 900.4 rounds to 900.
  // CHECK: arith.mulf {{.*}} {remat.cost = #remat.cost<bytes = [256], flops = 64, time_ns = 900>}
  %3 = arith.mulf %2, %2 : tensor<8x8xf32> loc(fused["fc2", "other.py":1:1])
  // Both its location (700) and its name "fc3" (5) are in the profile: the
  // location wins.
  // CHECK: arith.subf {{.*}} {remat.cost = #remat.cost<bytes = [256], flops = 64, time_ns = 700>}
  %4 = arith.subf %3, %2 : tensor<8x8xf32> loc("fc3"("model.py":30:5))
  // Only the operation name matches: the per-kind default 1200.
  // CHECK: linalg.matmul {remat.cost = #remat.cost<bytes = [256], flops = 2048, time_ns = 1200>}
  %5 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // Nothing matches: no time_ns.
  // CHECK: arith.divf {{.*}} {remat.cost = #remat.cost<bytes = [256], flops = 64>}
  %6 = arith.divf %5, %4 : tensor<8x8xf32> loc("model.py":40:1)
  // A hand-written cost keeps its bytes (300, overstating the 256 of the
  // type) and FLOPs and takes the profiled time.
  // CHECK: arith.addf {{.*}} {remat.cost = #remat.cost<bytes = [300], flops = 2, time_ns = 800>}
  %7 = arith.addf %6, %6 {remat.cost = #remat.cost<bytes = [300], flops = 2>} : tensor<8x8xf32> loc("relu1")
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>,
      tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
