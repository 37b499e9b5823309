//===- Pipelines.cpp - register every remat-opt pipeline ------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Pipelines/Pipelines.h"

void remat::registerRematPipelines() {
  registerRematLowerToCPUPipeline();
  registerRematLowerToNVVMPipeline();
  registerRematPipeline();
  registerRematShardPartitionPipeline();
}
