//===- Devices.h - the devices of the roofline cost model -------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one table of devices the roofline cost model knows (docs/CostModel.md,
// "Time on a device"). remat-opt reads it through Roofline.h; the importer
// (tools/remat-import-torch/graph_export.py) parses the REMAT_DEVICE lines of
// this very file, so both price an op with the same numbers. Keep one device
// per line, in the form below.
//
// REMAT_DEVICE(Id, name, description, FP64, FP64 tensor core, FP32,
//              BF16/FP16 tensor core (dense), HBM bytes per second)
//
// Peaks in FLOP/s, bandwidth in bytes/s, all from NVIDIA's data sheets of the
// SXM parts (the dense tensor-core figure is half the "with sparsity" one the
// sheets print):
//   * A100 SXM4 80 GB (NVIDIA A100 Tensor Core GPU data sheet): FP64 9.7 TF,
//     FP64 TC 19.5 TF, FP32 19.5 TF, BF16 TC 312 TF, HBM2e 2,039 GB/s;
//   * H100 SXM5 80 GB (NVIDIA H100 Tensor Core GPU data sheet): FP64 34 TF,
//     FP64 TC 67 TF, FP32 67 TF, BF16 TC 1,979 TF with sparsity, HBM3
//     3.35 TB/s;
//   * H200 SXM 141 GB (NVIDIA H200 Tensor Core GPU data sheet): the H100's
//     compute, HBM3e 4.8 TB/s.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_DEVICES_H
#define REMAT_ANALYSIS_DEVICES_H

// clang-format off
#define REMAT_DEVICES(REMAT_DEVICE)                                            \
  REMAT_DEVICE(A100, "a100", "NVIDIA A100 SXM4 80 GB", 9.7e12, 19.5e12, 19.5e12, 312e12, 2.039e12) \
  REMAT_DEVICE(H100, "h100", "NVIDIA H100 SXM5 80 GB", 34e12, 67e12, 67e12, 989.5e12, 3.35e12) \
  REMAT_DEVICE(H200, "h200", "NVIDIA H200 SXM 141 GB", 34e12, 67e12, 67e12, 989.5e12, 4.8e12)
// clang-format on

#endif // REMAT_ANALYSIS_DEVICES_H
