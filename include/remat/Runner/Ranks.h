//===- Ranks.h - the MPI ranks of a data-parallel step run ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What remat-run and remat-gpu-run share to run a data-parallel step under
// `mpirun -np N` (docs/Distributed.md): the MPI session (initialized only for
// a step that communicates), the per-rank program and the specs of its
// arguments (the rank's blocks of the single-process inputs), the MPI symbols
// the JIT'd code needs, and the reports (rank 0 prints a table of every rank,
// --json prints every rank's report). Typical use in a runner's main:
//
//   RankSession session(tool, communicates(module), argc, argv);
//   RankEntry ranked = prepareRankEntry(tool, module, entry, file, session);
//   ... lower, JIT, fill inputs with fillRankInput, run, measure ...
//   std::vector<std::string> reports;
//   if (!gatherRankReports(session, printJSON, reports))
//     return 0; // not rank 0
//
// Without MPI (REMAT_ENABLE_MPI 0) a step that communicates is a CLI error;
// every other step runs as rank 0 of 1.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RANKS_H
#define REMAT_RUNNER_RANKS_H

#include "remat/Runner/RunnerSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace remat {

/// The processes of a data-parallel run: MPI is initialized (and finalized
/// on destruction) only when `distributed`; otherwise this is rank 0 of 1.
class RankSession {
public:
  RankSession(llvm::StringRef tool, bool distributed, int &argc, char **&argv);
  ~RankSession();
  RankSession(const RankSession &) = delete;
  RankSession &operator=(const RankSession &) = delete;

  bool isDistributed() const { return active; }
  int getRank() const { return rank; }
  int getSize() const { return size; }
  /// The rank among the processes of this machine (MPI_COMM_TYPE_SHARED):
  /// what selects a device when each machine has several.
  int getLocalRank() const { return localRank; }

  /// Waits for every rank (so that the timed calls start together).
  void barrier();
  /// On rank 0, every rank's `text` in rank order; elsewhere nothing.
  std::vector<std::string> gather(const std::string &text);
  /// Whether the MPI library reads and writes CUDA device buffers (OpenMPI's
  /// MPIX_Query_cuda_support); false when unknown.
  bool acceptsCudaBuffers() const;

private:
  bool active = false;
  int rank = 0;
  int size = 1;
  int localRank = 0;
};

/// Whether `module` holds ops of the `shard` or `mpi` dialects.
bool communicates(mlir::ModuleOp module);

/// The entry of a (possibly data-parallel) run: argument `i` of the program
/// that runs is block `rank` of `splits[i]` of a value of spec
/// `globalSpecs[i]` (the whole value when replicated); `argSpecs` and
/// `resultSpecs` are the signature of the program that runs.
struct RankEntry {
  llvm::SmallVector<ArgSplit> splits;
  llvm::SmallVector<ValueSpec> globalSpecs;
  llvm::SmallVector<ValueSpec> argSpecs;
  llvm::SmallVector<ValueSpec> resultSpecs;
};

/// Reads the splits of `entry` (getArgSplits), checks that its grid has as
/// many processes as `session` has ranks, and partitions a `shard`-annotated
/// entry into its per-rank program (remat-shard-partition); a per-rank
/// program (arguments marked `remat.split_dim`) is kept. Exits with a CLI
/// error of `tool` naming `filename` on failure.
RankEntry prepareRankEntry(llvm::StringRef tool, mlir::ModuleOp module,
                           mlir::func::FuncOp entry, llvm::StringRef filename,
                           const RankSession &session);

/// Fills `data` with this rank's block of memref argument `arg` of `ranked`
/// (fillInputBlock), or the scalar argument.
void fillRankInput(const RankEntry &ranked, unsigned arg,
                   const RankSession &session, void *data);

/// The symbols the JIT'd code of a data-parallel step needs from the MPI
/// library that its name lookup would miss: upstream's OpenMPI lowering of
/// `mpi.allreduce` names the reduction `ompi_mpi_<op>`, but OpenMPI exports
/// `ompi_mpi_op_<op>` (docs/Distributed.md). Empty without OpenMPI.
llvm::SmallVector<std::pair<llvm::StringRef, void *>> getMPISymbols();

/// Gathers every rank's JSON report (written by `printJSON`) on rank 0 into
/// `reports`. Returns false on the other ranks, which print nothing; true
/// on rank 0 and in a run without MPI (`reports` then stays empty).
bool gatherRankReports(RankSession &session,
                       llvm::function_ref<void(llvm::raw_ostream &)> printJSON,
                       std::vector<std::string> &reports);

/// Prints `{"ranks": N, "per_rank": [...]}` from every rank's JSON report.
void printRankReportsJSON(llvm::raw_ostream &os,
                          llvm::ArrayRef<std::string> reports);

/// Prints the report of a run on stdout: rank 0 gathers every rank's JSON
/// report (`printJSON`) when the run is distributed, then prints the text
/// report (`printText`, given the ranks' reports) or the JSON (its own, or
/// every rank's); the other ranks print nothing.
void printRunReport(
    RankSession &session, bool emitJson,
    llvm::function_ref<void(llvm::raw_ostream &)> printJSON,
    llvm::function_ref<void(llvm::raw_ostream &, llvm::ArrayRef<std::string>)>
        printText);

/// Prints one row per rank (peak, inputs, leaks, time, one hash over the
/// result hashes) from every rank's JSON report; `peakKey` names the peak
/// field of the reports. Exits with a CLI error of `tool` on a malformed
/// report.
void printRankTable(llvm::StringRef tool, llvm::raw_ostream &os,
                    llvm::ArrayRef<std::string> reports,
                    llvm::StringRef peakKey = "peak_bytes");

} // namespace remat

#endif // REMAT_RUNNER_RANKS_H
