// RUN: %gen shard %examples/mlp.mlir --ranks 2 | remat-opt --remat-shard-partition | FileCheck %s --check-prefixes=CHECK,TWO --implicit-check-not=shard.all_gather --implicit-check-not=shard.all_slice
// RUN: %gen shard %examples/mlp.mlir --ranks 4 | remat-opt --remat-shard-partition | FileCheck %s --check-prefixes=CHECK,FOUR --implicit-check-not=shard.all_gather --implicit-check-not=shard.all_slice
// RUN: %gen shard %examples/generated/resnet4.mlir --ranks 2 | remat-opt --remat-shard-partition | FileCheck %s --check-prefix=RESNET --implicit-check-not=shard.all_gather --implicit-check-not=shard.all_slice

// The MLP step (batch 8), annotated by the generator (inputs split along the
// batch over a 1-D grid, parameters replicated), partitioned by upstream
// sharding-propagation{traversal=forward-backward} and shard-partition: each
// rank runs the whole step on its 8/N rows, and the loss and the six
// gradients are partial sums, each completed by one all-reduce over the
// grid. No activation is gathered.

// CHECK:      shard.grid @dp
// CHECK-LABEL: func.func @mlp_step
// TWO-SAME:     tensor<4x32xf32>, %{{.*}}: tensor<4x10xf32>)
// FOUR-SAME:    tensor<2x32xf32>, %{{.*}}: tensor<2x10xf32>)
// CHECK-COUNT-7: shard.all_reduce %{{.*}} on @dp grid_axes = [0]
// CHECK-NOT:    shard.all_reduce
// CHECK:        return

// ResNet-4 with biases: 18 parameter tensors, 18 gradient all-reduces and
// the loss's.
// RESNET-LABEL: func.func @resnet4_step
// RESNET-COUNT-19: shard.all_reduce
// RESNET-NOT:   shard.all_reduce
