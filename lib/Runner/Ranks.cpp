//===- Ranks.cpp - the MPI ranks of a data-parallel step run --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Ranks.h"

#include "remat/Analysis/Storage.h"
#include "remat/Runner/Compile.h"
#include "remat/Runner/Inputs.h"
#include "remat/Runner/RunnerError.h"
#include "remat/Support/JSON.h"

#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if REMAT_ENABLE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

using namespace mlir;
using namespace remat;

llvm::Expected<std::unique_ptr<RankSession>>
RankSession::create(StringRef tool, bool distributed, int &argc,
                    char **&argv) {
  std::unique_ptr<RankSession> session(new RankSession());
  if (!distributed)
    return std::move(session);
#if REMAT_ENABLE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &session->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &session->size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, session->rank,
                      MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &session->localRank);
  MPI_Comm_free(&local);
  session->active = true;
  return std::move(session);
#else
  return makeRunnerError("the step communicates (shard or mpi ops), but " +
                         tool +
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

/// The split of `arg` that the sharding `sharding` on `grid` gives `type`,
/// or failure with `error`.
static FailureOr<ArgSplit> getSplit(shard::ShardingOp sharding,
                                    shard::GridOp grid, RankedTensorType type,
                                    std::string &error) {
  if (!sharding.getDynamicHaloSizes().empty() ||
      !sharding.getStaticHaloSizes().empty() ||
      !sharding.getDynamicShardedDimsOffsets().empty() ||
      !sharding.getStaticShardedDimsOffsets().empty()) {
    error = "halos and explicit shard sizes are not supported";
    return failure();
  }
  if (grid.getRank() != 1) {
    error = "only 1-D grids are supported";
    return failure();
  }
  int64_t parts = grid.getShape()[0];
  ArgSplit split;
  for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes())) {
    if (axes.empty())
      continue;
    if (split.dim >= 0) {
      error = "a split over several dimensions is not supported";
      return failure();
    }
    if (dim >= static_cast<size_t>(type.getRank()) ||
        ShapedType::isDynamic(type.getDimSize(dim)) || parts <= 0 ||
        type.getDimSize(dim) % parts != 0) {
      error = "dimension " + std::to_string(dim) +
              " is not a static multiple of the " + std::to_string(parts) +
              " processes of the grid";
      return failure();
    }
    split.dim = dim;
    split.parts = parts;
  }
  return split;
}

/// The split of argument `arg` of a per-rank program, marked `remat.split_dim
/// = <dim>`, over the only (1-D) grid of its module, or failure with `error`.
static FailureOr<ArgSplit> getPerRankSplit(BlockArgument arg, Attribute attr,
                                           std::string &error) {
  auto dim = dyn_cast<IntegerAttr>(attr);
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!dim || !type || dim.getInt() < 0 || dim.getInt() >= type.getRank()) {
    error = std::string(kSplitDimAttrName) +
            " must be an integer dimension of the ranked tensor argument";
    return failure();
  }
  auto module = arg.getOwner()->getParentOp()->getParentOfType<ModuleOp>();
  SmallVector<shard::GridOp> grids;
  if (module)
    grids = llvm::to_vector(module.getOps<shard::GridOp>());
  if (grids.size() != 1 || grids.front().getRank() != 1) {
    error = std::string(kSplitDimAttrName) +
            " needs exactly one 1-D shard.grid in the module";
    return failure();
  }
  ArgSplit split;
  split.dim = dim.getInt();
  split.parts = grids.front().getShape()[0];
  split.perRank = true;
  if (ShapedType::isDynamic(type.getDimSize(split.dim)) || split.parts <= 0) {
    error = "dimension " + std::to_string(split.dim) + " is not static";
    return failure();
  }
  return split;
}

FailureOr<SmallVector<ArgSplit>> remat::getArgSplits(func::FuncOp entry,
                                                     std::string &error) {
  SmallVector<ArgSplit> splits(entry.getNumArguments());
  SymbolTableCollection symbolTables;
  for (BlockArgument arg : entry.getArguments()) {
    if (Attribute attr =
            entry.getArgAttr(arg.getArgNumber(), kSplitDimAttrName)) {
      FailureOr<ArgSplit> split = getPerRankSplit(arg, attr, error);
      if (failed(split)) {
        error =
            "argument #" + std::to_string(arg.getArgNumber()) + ": " + error;
        return failure();
      }
      splits[arg.getArgNumber()] = *split;
      continue;
    }
    for (Operation *user : arg.getUsers()) {
      auto shardOp = dyn_cast<shard::ShardOp>(user);
      if (!shardOp || !shardOp.getAnnotateForUsers())
        continue;
      auto sharding = shardOp.getSharding().getDefiningOp<shard::ShardingOp>();
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      shard::GridOp grid =
          sharding ? shard::getGridOrNull(sharding, sharding.getGridAttr(),
                                          symbolTables)
                   : shard::GridOp();
      std::string why = "its sharding is not a shard.sharding on a shard.grid";
      FailureOr<ArgSplit> split = sharding && grid && type
                                      ? getSplit(sharding, grid, type, why)
                                      : FailureOr<ArgSplit>(failure());
      if (failed(split)) {
        error = "argument #" + std::to_string(arg.getArgNumber()) + ": " + why;
        return failure();
      }
      splits[arg.getArgNumber()] = *split;
    }
  }
  return splits;
}

/// The number of processes of every `shard.grid` of `module` (its shape's
/// product), or 0 when it has none. Sets `error` and fails when two grids
/// differ in size.
static FailureOr<int64_t> getGridProcessCount(ModuleOp module,
                                              std::string &error) {
  int64_t count = 0;
  for (auto grid : module.getOps<shard::GridOp>()) {
    int64_t size = 1;
    for (int64_t extent : grid.getShape())
      size *= extent;
    if (count && size != count) {
      error = "grids of " + std::to_string(count) + " and " +
              std::to_string(size) + " processes in one module";
      return failure();
    }
    count = size;
  }
  return count;
}

void remat::fillInputBlock(const ValueSpec &global, unsigned arg,
                           const ArgSplit &split, int64_t index, void *data) {
  if (split.dim < 0 || !global.isMemRef) {
    fillInput(global, arg, data);
    return;
  }
  std::vector<char> whole(global.byteSize());
  fillInput(global, arg, whole.data());
  // Row-major: `outer` runs of the split dimension, each `dimSize` slices of
  // `inner` bytes; the block is `dimSize / parts` slices of every run.
  int64_t outer = 1, inner = global.elemBytes();
  for (int d = 0; d < split.dim; ++d)
    outer *= global.shape[d];
  for (int64_t d = split.dim + 1; d < global.rank(); ++d)
    inner *= global.shape[d];
  int64_t dimSize = global.shape[split.dim];
  int64_t block = dimSize / split.parts;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<char *>(data) + o * block * inner,
                whole.data() + (o * dimSize + index * block) * inner,
                block * inner);
}

/// The specs of the whole values the arguments of `entry` are blocks of:
/// the declared types, with the split dimension of a per-rank program's
/// argument (`remat.split_dim`) multiplied back.
static llvm::Error getGlobalSpecs(StringRef tool, func::FuncOp entry,
                                  ArrayRef<ArgSplit> splits,
                                  SmallVectorImpl<ValueSpec> &specs) {
  SmallVector<ValueSpec> results;
  if (llvm::Error error = getSignatureSpecs(tool, entry, specs, results))
    return error;
  for (auto [i, split] : llvm::enumerate(splits)) {
    if (!split.perRank)
      continue;
    // The whole value is `parts` blocks: it must not wrap around either.
    auto type = cast<ShapedType>(entry.getArgumentTypes()[i]);
    SmallVector<int64_t> shape(type.getShape());
    bool overflow =
        llvm::MulOverflow(shape[split.dim], split.parts, shape[split.dim]);
    std::optional<int64_t> bytes =
        getStorageBytes(type.clone(shape), entry.getOperation());
    if (overflow || !bytes || isSaturated(*bytes))
      return makeRunnerError("the whole value of argument #" + Twine(i) +
                             " of the per-rank '" + entry.getName() +
                             "' takes more than 2^63 bytes");
    specs[i].shape = std::move(shape);
  }
  return llvm::Error::success();
}

/// Checks that every argument of the per-rank program is the block of its
/// split of the whole value.
static llvm::Error checkBlocks(const RankEntry &ranked, func::FuncOp entry) {
  for (auto [i, split] : llvm::enumerate(ranked.splits)) {
    SmallVector<int64_t> expected = ranked.globalSpecs[i].shape;
    if (split.dim >= 0)
      expected[split.dim] /= split.parts;
    if (ranked.argSpecs[i].shape != ArrayRef<int64_t>(expected))
      return makeRunnerError("argument #" + Twine(i) + " of the per-rank '" +
                             entry.getName() + "' is " +
                             ranked.argSpecs[i].typeString +
                             ", not the block of its annotation");
  }
  return llvm::Error::success();
}

llvm::Expected<RankEntry>
remat::prepareRankEntry(StringRef tool, ModuleOp module, func::FuncOp entry,
                        StringRef filename, const RankSession &session) {
  std::string error;
  FailureOr<SmallVector<ArgSplit>> splits = getArgSplits(entry, error);
  if (failed(splits))
    return makeRunnerError("'" + entry.getName() + "': " + error);
  FailureOr<int64_t> gridProcesses = getGridProcessCount(module, error);
  if (failed(gridProcesses))
    return makeRunnerError(error);
  if (*gridProcesses > 0 && *gridProcesses != session.getSize())
    return makeRunnerError("the step's grid has " + Twine(*gridProcesses) +
                           " processes, but this run has " +
                           Twine(session.getSize()) + " ranks (mpirun -np " +
                           Twine(*gridProcesses) + ")");
  RankEntry ranked;
  ranked.splits = std::move(*splits);
  if (llvm::Error error =
          getGlobalSpecs(tool, entry, ranked.splits, ranked.globalSpecs))
    return std::move(error);

  bool annotated = false;
  entry.walk([&](shard::ShardOp) { annotated = true; });
  if (annotated)
    if (llvm::Error error =
            lowerModule(module, "builtin.module(remat-shard-partition)",
                        filename, [](PassManager &) {}))
      return std::move(error);
  if (llvm::Error error = getSignatureSpecs(tool, entry, ranked.argSpecs,
                                            ranked.resultSpecs))
    return std::move(error);
  if (llvm::Error error = checkBlocks(ranked, entry))
    return std::move(error);
  return std::move(ranked);
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
  SmallVector<std::pair<StringRef, void *>> symbols = getCollectiveSymbols();
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

llvm::Error remat::printRunReport(RankSession &session,
                                  const RunReport &report, bool emitJson) {
  auto printJSON = [&](llvm::raw_ostream &os) { report.printJSON(os); };
  std::vector<std::string> reports;
  if (!gatherRankReports(session, printJSON, reports))
    return llvm::Error::success();
  if (!emitJson) {
    report.printText(llvm::outs());
    return session.isDistributed() ? printRankTable(llvm::outs(), reports)
                                   : llvm::Error::success();
  }
  if (!session.isDistributed())
    printJSON(llvm::outs());
  else
    printRankReportsJSON(llvm::outs(), reports);
  return llvm::Error::success();
}

namespace {
/// What the rank table reads of a rank's JSON report (RunReport::printJSON).
struct RankRow {
  JSONInt peakBytes, inputBytes, leakedBytes;
  JSONNumber timeMsMin;
  std::vector<std::string> resultHashes;
};

/// One result of a report: its hash.
struct ResultHash {
  std::string fnv;
};

bool fromJSON(const llvm::json::Value &value, ResultHash &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("fnv1a64", out.fnv);
}

bool fromJSON(const llvm::json::Value &value, RankRow &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  std::vector<ResultHash> results;
  if (!o || !o.map("peak_bytes", out.peakBytes) ||
      !o.map("input_bytes", out.inputBytes) ||
      !o.map("leaked_bytes", out.leakedBytes) ||
      !o.map("time_ms_min", out.timeMsMin) || !o.map("results", results))
    return false;
  for (const ResultHash &result : results)
    out.resultHashes.push_back(result.fnv);
  return true;
}
} // namespace

llvm::Error remat::printRankTable(llvm::raw_ostream &os,
                                  ArrayRef<std::string> reports) {
  os << "rank  peak_bytes  input_bytes  leaked_bytes  time_ms_min  "
        "results_fnv1a64\n";
  for (auto [rank, report] : llvm::enumerate(reports)) {
    llvm::Expected<llvm::json::Value> value = parseJSON(report);
    RankRow row;
    JSONErrors errors;
    if (!value)
      return makeRunnerError("rank " + Twine(rank) + " sent a malformed " +
                             "report: " + llvm::toString(value.takeError()));
    if (!fromJSON(*value, row, errors.root()))
      return makeRunnerError("rank " + Twine(rank) + " sent a malformed " +
                             "report: " + errors.getMessage());
    // One hash over the result hashes, in result order.
    uint64_t hash = Checksum().fnv;
    for (const std::string &fnv : row.resultHashes)
      for (char c : fnv)
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    os << llvm::format("%-4zu  %10lld  %11lld  %12lld  %11.3f  ", rank,
                       (long long)row.peakBytes.value,
                       (long long)row.inputBytes.value,
                       (long long)row.leakedBytes.value, row.timeMsMin.value)
       << formatHex64(hash) << "\n";
  }
  return llvm::Error::success();
}
