//===- Ranks.h - the MPI ranks of a data-parallel step run ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What remat-run and remat-gpu-run share to run a data-parallel step under
// `mpirun -np N` (docs/Distributed.md): the MPI session (initialized only for
// a step that communicates), how each argument is split over the ranks (from
// its `shard` annotation or `remat.split_dim`), the per-rank program and the
// specs of its arguments (the rank's blocks of the single-process inputs,
// Inputs.h), the MPI symbols the JIT'd code needs, and the reports (rank 0
// prints a table of every rank, --json prints every rank's report).
// runnerMain (RunnerMain.h) uses them:
//
//   auto session = RankSession::create(tool, communicates(module), argc, argv);
//   auto ranked = prepareRankEntry(tool, module, entry, file, **session);
//   ... lower, JIT, fill inputs with fillRankInput, run, measure ...
//   if (llvm::Error error = printRunReport(**session, report, emitJson)) ...
//
// Without MPI (REMAT_ENABLE_MPI 0) a step that communicates is an error;
// every other step runs as rank 0 of 1.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RANKS_H
#define REMAT_RUNNER_RANKS_H

#include "remat/Runner/CallABI.h"
#include "remat/Runner/RunReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
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
  /// Fails when the run is `distributed` but `tool` was built without MPI.
  static llvm::Expected<std::unique_ptr<RankSession>>
  create(llvm::StringRef tool, bool distributed, int &argc, char **&argv);
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
  /// Leaves MPI without finalizing it, for a rank that stops on an error:
  /// the other ranks may wait in a collective that MPI_Finalize would join,
  /// while a process that ends without it makes mpirun stop the job.
  void abandon() { active = false; }

private:
  RankSession() = default;

  bool active = false;
  int rank = 0;
  int size = 1;
  int localRank = 0;
};

/// Whether `module` holds ops of the `shard` or `mpi` dialects.
bool communicates(mlir::ModuleOp module);

/// How a data-parallel step splits one argument over the ranks of a 1-D
/// grid: along dimension `dim` into `parts` equal blocks, rank `r` holding
/// block `r`. `dim` -1: replicated, every rank holds the whole value.
/// `perRank`: the argument is declared with the block's shape (a per-rank
/// program), not the whole value's (a `shard`-annotated step).
struct ArgSplit {
  int dim = -1;
  int64_t parts = 1;
  bool perRank = false;
};

/// The argument attribute that marks an argument of a per-rank program (one
/// written with explicit collectives, e.g. by `remat-import-torch --shard`)
/// as the rank's block along the given dimension of a value split evenly
/// over the module's 1-D grid: `%x: tensor<2x3xf32> {remat.split_dim = 0}`.
inline constexpr llvm::StringLiteral kSplitDimAttrName = "remat.split_dim";

/// The split of every argument of `entry`, read from its `shard`
/// annotations: `%a = shard.shard %arg to %s annotate_for_users` with `%s` a
/// `shard.sharding` on a 1-D `shard.grid` (examples/gen/gen_training_step.py
/// `shard` writes them), or from the `remat.split_dim` attribute of an
/// argument of a per-rank program (kSplitDimAttrName). Arguments without
/// either are replicated. Sets `error` and fails on a sharding the runners
/// cannot feed: a split over several dimensions or along an N-D grid, halos
/// or explicit shard sizes, a dimension that is dynamic or not a multiple of
/// the number of processes, a `remat.split_dim` that is not a dimension of
/// its argument or in a module without exactly one 1-D grid.
mlir::FailureOr<llvm::SmallVector<ArgSplit>>
getArgSplits(mlir::func::FuncOp entry, std::string &error);

/// Fills `data` with the documented input (fillInput) of argument `arg`,
/// whose whole value has spec `global`, restricted to block `index` of
/// `split` (the whole value when replicated): rank `index` of a
/// data-parallel run thus holds exactly its slice of the single-process
/// input. `data` holds the block's elements in row-major order.
void fillInputBlock(const ValueSpec &global, unsigned arg,
                    const ArgSplit &split, int64_t index, void *data);

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
/// program (arguments marked `remat.split_dim`) is kept. Fails, naming
/// `filename`, on a sharding the runners cannot feed; `tool` names the
/// runner in the reasons.
llvm::Expected<RankEntry> prepareRankEntry(llvm::StringRef tool,
                                           mlir::ModuleOp module,
                                           mlir::func::FuncOp entry,
                                           llvm::StringRef filename,
                                           const RankSession &session);

/// Fills `data` with this rank's block of memref argument `arg` of `ranked`
/// (fillInputBlock), or the scalar argument.
void fillRankInput(const RankEntry &ranked, unsigned arg,
                   const RankSession &session, void *data);

/// The symbols the JIT'd code of a data-parallel step needs from the MPI
/// library that its name lookup would miss: upstream's OpenMPI lowering of
/// `mpi.allreduce` names the reduction `ompi_mpi_<op>`, but OpenMPI exports
/// `ompi_mpi_op_<op>` (docs/Distributed.md); and getCollectiveSymbols().
llvm::SmallVector<std::pair<llvm::StringRef, void *>> getMPISymbols();

/// The C functions `remat-lower-gather-scatter` lowers `shard.all_gather`
/// and `shard.reduce_scatter` to (`_mlir_ciface_remat_mpi_all_gather_f32`,
/// `_mlir_ciface_remat_mpi_reduce_scatter_f32`: MPI_Allgather and
/// MPI_Reduce_scatter_block on MPI_COMM_WORLD). Empty without MPI.
llvm::SmallVector<std::pair<llvm::StringRef, void *>> getCollectiveSymbols();

/// Gathers every rank's JSON report (written by `printJSON`) on rank 0 into
/// `reports`. Returns false on the other ranks, which print nothing; true
/// on rank 0 and in a run without MPI (`reports` then stays empty).
bool gatherRankReports(RankSession &session,
                       llvm::function_ref<void(llvm::raw_ostream &)> printJSON,
                       std::vector<std::string> &reports);

/// Prints `{"ranks": N, "per_rank": [...]}` from every rank's JSON report.
void printRankReportsJSON(llvm::raw_ostream &os,
                          llvm::ArrayRef<std::string> reports);

/// Prints `report` on stdout: rank 0 gathers every rank's JSON report when
/// the run is distributed, then prints the text report followed by the rank
/// table (printRankTable), or the JSON (its own, or every rank's); the other
/// ranks print nothing. Fails on a malformed rank report.
llvm::Error printRunReport(RankSession &session, const RunReport &report,
                           bool emitJson);

/// Prints one row per rank (peak_bytes, input_bytes, leaked_bytes,
/// time_ms_min, one hash over the result hashes) from every rank's JSON
/// report. Fails, naming the rank and the JSON path, on a malformed report.
llvm::Error printRankTable(llvm::raw_ostream &os,
                           llvm::ArrayRef<std::string> reports);

} // namespace remat

#endif // REMAT_RUNNER_RANKS_H
