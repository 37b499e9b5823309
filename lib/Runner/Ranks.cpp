//===- Ranks.cpp - the MPI ranks of a data-parallel step run --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Ranks.h"

#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

#if REMAT_ENABLE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

using namespace mlir;
using namespace remat;

RankSession::RankSession(StringRef tool, bool distributed, int &argc,
                         char **&argv) {
  if (!distributed)
    return;
#if REMAT_ENABLE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                      &local);
  MPI_Comm_rank(local, &localRank);
  MPI_Comm_free(&local);
  active = true;
#else
  exitWithError(tool, "the step communicates (shard or mpi ops), but " + tool +
                          " was built without MPI (install libopenmpi-dev "
                          "and reconfigure)");
#endif
}

RankSession::~RankSession() {
#if REMAT_ENABLE_MPI
  if (active)
    MPI_Finalize();
#endif
}

void RankSession::barrier() {
#if REMAT_ENABLE_MPI
  if (active)
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::vector<std::string> RankSession::gather(const std::string &text) {
  if (!active)
    return {text};
  std::vector<std::string> texts;
#if REMAT_ENABLE_MPI
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(size), offsets(size);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
             MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(std::max(total, 1));
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(),
              offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      texts.emplace_back(all.data() + offsets[r], lengths[r]);
#endif
  return texts;
}

bool RankSession::acceptsCudaBuffers() const {
#if REMAT_ENABLE_MPI && defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() != 0;
#else
  return false;
#endif
}

bool remat::communicates(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    found =
        isa_and_present<shard::ShardDialect, mpi::MPIDialect>(op->getDialect());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// The specs of the whole values the arguments of `entry` are blocks of:
/// the declared types, with the split dimension of a per-rank program's
/// argument (`remat.split_dim`) multiplied back.
static SmallVector<ValueSpec> getGlobalSpecs(StringRef tool, func::FuncOp entry,
                                             ArrayRef<ArgSplit> splits) {
  SmallVector<ValueSpec> specs, results;
  getSignatureSpecs(tool, entry, specs, results);
  for (auto [spec, split] : llvm::zip(specs, splits))
    if (split.perRank)
      spec.shape[split.dim] *= split.parts;
  return specs;
}

RankEntry remat::prepareRankEntry(StringRef tool, ModuleOp module,
                                  func::FuncOp entry, StringRef filename,
                                  const RankSession &session) {
  std::string error;
  FailureOr<SmallVector<ArgSplit>> splits = getArgSplits(entry, error);
  if (failed(splits))
    exitWithError(tool, "'" + entry.getName() + "': " + error);
  FailureOr<int64_t> gridProcesses = getGridProcessCount(module, error);
  if (failed(gridProcesses))
    exitWithError(tool, error);
  if (*gridProcesses > 0 && *gridProcesses != session.getSize())
    exitWithError(tool, "the step's grid has " + Twine(*gridProcesses) +
                            " processes, but this run has " +
                            Twine(session.getSize()) + " ranks (mpirun -np " +
                            Twine(*gridProcesses) + ")");
  RankEntry ranked;
  ranked.splits = std::move(*splits);
  ranked.globalSpecs = getGlobalSpecs(tool, entry, ranked.splits);

  bool annotated = false;
  entry.walk([&](shard::ShardOp) { annotated = true; });
  if (annotated)
    lowerModule(tool, module, "builtin.module(remat-shard-partition)", filename,
                [](PassManager &) {});
  getSignatureSpecs(tool, entry, ranked.argSpecs, ranked.resultSpecs);
  for (auto [i, split] : llvm::enumerate(ranked.splits)) {
    SmallVector<int64_t> expected = ranked.globalSpecs[i].shape;
    if (split.dim >= 0)
      expected[split.dim] /= split.parts;
    if (ranked.argSpecs[i].shape != ArrayRef<int64_t>(expected))
      exitWithError(tool, "argument #" + Twine(i) + " of the per-rank '" +
                              entry.getName() + "' is " +
                              ranked.argSpecs[i].typeString +
                              ", not the block of its annotation");
  }
  return ranked;
}

void remat::fillRankInput(const RankEntry &ranked, unsigned arg,
                          const RankSession &session, void *data) {
  if (ranked.argSpecs[arg].isMemRef)
    fillInputBlock(ranked.globalSpecs[arg], arg, ranked.splits[arg],
                   session.getRank(), data);
  else
    fillInput(ranked.argSpecs[arg], arg, data);
}

SmallVector<std::pair<StringRef, void *>> remat::getMPISymbols() {
  SmallVector<std::pair<StringRef, void *>> symbols;
#if REMAT_ENABLE_MPI && defined(OPEN_MPI)
#define REMAT_OMPI_OP(name)                                                    \
  symbols.push_back({"ompi_mpi_" #name, &ompi_mpi_op_##name});
  REMAT_OMPI_OP(max)
  REMAT_OMPI_OP(min)
  REMAT_OMPI_OP(sum)
  REMAT_OMPI_OP(prod)
  REMAT_OMPI_OP(land)
  REMAT_OMPI_OP(band)
  REMAT_OMPI_OP(lor)
  REMAT_OMPI_OP(bor)
  REMAT_OMPI_OP(lxor)
  REMAT_OMPI_OP(bxor)
  REMAT_OMPI_OP(maxloc)
  REMAT_OMPI_OP(minloc)
  REMAT_OMPI_OP(replace)
  REMAT_OMPI_OP(no_op)
#undef REMAT_OMPI_OP
#endif
  return symbols;
}

bool remat::gatherRankReports(
    RankSession &session,
    llvm::function_ref<void(llvm::raw_ostream &)> printJSON,
    std::vector<std::string> &reports) {
  if (!session.isDistributed())
    return true;
  std::string report;
  llvm::raw_string_ostream reportStream(report);
  printJSON(reportStream);
  reports = session.gather(report);
  return session.getRank() == 0;
}

void remat::printRankReportsJSON(llvm::raw_ostream &os,
                                 ArrayRef<std::string> reports) {
  os << "{\"ranks\": " << reports.size() << ", \"per_rank\": [\n";
  for (auto [rank, report] : llvm::enumerate(reports))
    os << (rank ? ",\n" : "") << StringRef(report).rtrim();
  os << "\n]}\n";
}

void remat::printRunReport(
    RankSession &session, bool emitJson,
    llvm::function_ref<void(llvm::raw_ostream &)> printJSON,
    llvm::function_ref<void(llvm::raw_ostream &, ArrayRef<std::string>)>
        printText) {
  std::vector<std::string> reports;
  if (!gatherRankReports(session, printJSON, reports))
    return;
  if (!emitJson)
    return printText(llvm::outs(), reports);
  if (!session.isDistributed())
    return printJSON(llvm::outs());
  printRankReportsJSON(llvm::outs(), reports);
}

void remat::printRankTable(StringRef tool, llvm::raw_ostream &os,
                           ArrayRef<std::string> reports, StringRef peakKey) {
  os << "rank  peak_bytes  input_bytes  leaked_bytes  time_ms_min  "
        "results_fnv1a64\n";
  for (auto [rank, report] : llvm::enumerate(reports)) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(report);
    if (!value)
      exitWithError(tool, "rank " + Twine(rank) + " sent a malformed report: " +
                              llvm::toString(value.takeError()));
    const llvm::json::Object &o = *value->getAsObject();
    // One hash over the result hashes, in result order.
    uint64_t hash = Checksum().fnv;
    for (const llvm::json::Value &result : *o.getArray("results"))
      for (char c : result.getAsObject()->getString("fnv1a64").value_or(""))
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    os << llvm::format("%-4zu  %10lld  %11lld  %12lld  %11.3f  ", rank,
                       (long long)o.getInteger(peakKey).value_or(-1),
                       (long long)o.getInteger("input_bytes").value_or(-1),
                       (long long)o.getInteger("leaked_bytes").value_or(-1),
                       o.getNumber("time_ms_min").value_or(-1))
       << formatHex64(hash) << "\n";
  }
}
