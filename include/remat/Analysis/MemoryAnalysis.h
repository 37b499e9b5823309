//===- MemoryAnalysis.h - liveness and peak memory --------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Live bytes after every top-level operation of a function, for the current
// op order, on tensor IR (sizes from `remat.cost`) and on bufferized IR
// (memref allocations and deallocations). The memory model is the one of
// include/remat/Solver/Core/Problem.h; docs/Rationale.md ("Memory model") explains
// every rule.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_MEMORYANALYSIS_H
#define REMAT_ANALYSIS_MEMORYANALYSIS_H

#include "remat/Solver/Arena/Arena.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Pass/AnalysisManager.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
namespace json {
class OStream;
} // namespace json
} // namespace llvm

namespace remat {

/// Knobs of the memory model. The defaults are the solver's model.
struct MemoryAnalysisOptions {
  /// Count the function's arguments (inputs, parameters) as resident for the
  /// whole function, as Problem.h counts input and param nodes.
  bool countArguments = true;
  /// Error on a tensor-producing op without `remat.cost` instead of falling
  /// back to the size of its result types.
  bool requireCosts = false;
  /// Count an allocation carrying `alignment = A` as `bytes + A`, the size
  /// the upstream memref-to-LLVM lowering asks malloc for. Off: exact bytes.
  bool countAlignmentPadding = false;
  /// Size of every dynamic dimension of an allocation that has no
  /// `remat.cost` size (the function's dynamic-size hint); 0: such an
  /// allocation is an error.
  int64_t dynamicSizeHint = 0;

  bool operator==(const MemoryAnalysisOptions &other) const {
    return countArguments == other.countArguments &&
           requireCosts == other.requireCosts &&
           countAlignmentPadding == other.countAlignmentPadding &&
           dynamicSizeHint == other.dynamicSizeHint;
  }
};

/// One piece of storage the analysis tracks.
struct BufferLiveRange {
  enum class Kind {
    /// A function argument, resident for the whole function.
    Argument,
    /// A tensor result (bytes from `remat.cost` or its type) together with
    /// every view of it.
    Tensor,
    /// A memref allocation (`memref.alloc`, `alloca`, `realloc`, ...).
    Allocation,
  };
  Kind kind;
  /// The argument, tensor result or allocated memref.
  mlir::Value value;
  /// The op defining `value`; null for an argument.
  mlir::Operation *op = nullptr;
  int64_t bytes = 0;
  /// The buffer counts at every top-level op index in [begin, end].
  unsigned begin = 0;
  unsigned end = 0;
};

/// Liveness and peak memory of one function for its current op order.
///
/// The body must be a single block (structured control flow); the timeline
/// has one entry per op of that block, terminator included. Entry `i` is the
/// bytes resident while op `i` runs and right after it, before the values it
/// used for the last time are released: its operands and its results are
/// both counted, as the simulator counts a node's output while its operands
/// are still resident. Ops nested in regions count at their enclosing
/// top-level op, once (not once per loop iteration).
///
/// Tensor IR: a tensor result owns `remat.cost` bytes and lives from its
/// definition to its last use; a view (0 bytes) keeps its source's storage
/// live until the view's last use; returned values live to the end.
/// Bufferized IR: an allocation lives from its op to the op that certainly
/// frees it (`memref.dealloc`, `bufferization.dealloc` with a constant true
/// condition, a dealloc under `scf.if %true`; the freed memref is traced to
/// a single allocation through views), exclusive, or to the end; one freed
/// inside the top-level op that made it counts at that op only. Frees that
/// are not certain are ignored, so the peak is an upper bound.
///
/// Usage:
/// \code
///   auto &memory = getAnalysis<MemoryAnalysis>(); // on a func.func
///   if (failed(memory.emitError())) return signalPassFailure();
///   int64_t peak = memory.getPeakBytes();
///   Operation *at = memory.getPeakOp();
///   for (const BufferLiveRange *buffer :
///        memory.getLiveBuffers(memory.getPeakIndex()))
///     ...
/// \endcode
///
/// The analysis never mutates IR; it is invalidated by any pass that does not
/// preserve it explicitly (reordering or cloning ops changes the answer).
class MemoryAnalysis {
public:
  /// Analyses `op` (a function) with the default options. Errors (unsupported
  /// IR, dynamic shapes) are recorded, not emitted: see `emitError`.
  explicit MemoryAnalysis(mlir::Operation *op);
  MemoryAnalysis(mlir::Operation *op, const MemoryAnalysisOptions &options);

  /// Whether the function could be analysed; when false, every query below
  /// returns empty or zero values.
  bool succeeded() const { return !error; }
  /// Emits the recorded error, if any, at its operation and returns failure;
  /// returns success when the analysis succeeded.
  mlir::LogicalResult emitError() const;
  /// The recorded error message, if any.
  std::optional<std::string> getErrorMessage() const;
  /// Attaches to `diag` a note at the peak op ("<what> of N bytes is reached
  /// at this ...") and one note at each of the `maxValues` largest values
  /// live there (arguments left out), largest first. Nothing when the
  /// analysis failed. Notes carry locations only, never the printed op.
  void attachPeakNotes(mlir::InFlightDiagnostic &diag, llvm::StringRef what,
                       unsigned maxValues = 3) const;

  mlir::Operation *getFunction() const { return function; }
  const MemoryAnalysisOptions &getOptions() const { return options; }

  /// The top-level ops of the body, in order (timeline indices).
  llvm::ArrayRef<mlir::Operation *> getOps() const { return ops; }
  /// Bytes live at each top-level op (see the class comment).
  llvm::ArrayRef<int64_t> getTimeline() const { return timeline; }
  /// The timeline index of a top-level op of the body, if it is one.
  std::optional<unsigned> getIndex(mlir::Operation *op) const;
  /// Bytes live at a top-level op; nullopt if it is not one.
  std::optional<int64_t> getLiveBytes(mlir::Operation *op) const;

  /// The largest timeline entry (0 for an empty body) and the first index
  /// reaching it.
  int64_t getPeakBytes() const { return peakBytes; }
  unsigned getPeakIndex() const { return peakIndex; }
  mlir::Operation *getPeakOp() const {
    return ops.empty() ? nullptr : ops[peakIndex];
  }
  /// Bytes of the arguments counted as resident.
  int64_t getResidentBytes() const { return residentBytes; }
  /// Arguments of dynamic shape, which could not be sized and are not
  /// counted (e.g. the helper the deallocation pipeline generates).
  unsigned getUnsizedArguments() const { return unsizedArguments; }
  /// Bytes of every buffer ever live, as if nothing were freed.
  int64_t getTotalBytes() const { return totalBytes; }

  /// Bytes of the tensors defined inside the regions of the top-level op at
  /// timeline index `index` (an scf.for body's temporaries, say): they live
  /// only while that op runs, and a planner that sees the op as one node
  /// must reserve them (buildFunctionGraph does, as fixed bytes).
  int64_t getTransientBytes(unsigned index) const;
  /// The most transient bytes of one op, each buffer's bytes rounded up to
  /// `alignment` as an arena of that alignment places it (1: the largest
  /// getTransientBytes).
  int64_t getLargestTransientBytes(int64_t alignment) const;

  /// Every tracked buffer (bytes > 0), in definition order.
  llvm::ArrayRef<BufferLiveRange> getBuffers() const { return buffers; }
  /// The buffers live at timeline index `index`, largest first (ties in
  /// definition order).
  llvm::SmallVector<const BufferLiveRange *>
  getLiveBuffers(unsigned index) const;

  /// Writes this function's report as one JSON object:
  /// {"name", "peak_bytes", "peak_op_index", "peak_op", "peak_loc",
  ///  "resident_bytes", "total_bytes", "unsized_arguments",
  ///  "timeline": [{"index", "op", "live_bytes"}],
  ///  "live_at_peak": [{"value", "op", "loc", "bytes"}]} (largest first);
  ///  locations are "file:line:col", or "" when the IR has none.
  void writeJSON(llvm::json::OStream &json) const;

  /// Keeps the cached analysis only when a pass preserved it explicitly.
  bool isInvalidated(const mlir::AnalysisManager::PreservedAnalyses &pa) {
    return !pa.isPreserved<MemoryAnalysis>();
  }

private:
  /// The steps of the analysis, in order; `fail` records the first error.
  void analyse();
  mlir::Block *getBody();
  void addArgumentBuffers(mlir::Block &block);
  mlir::LogicalResult addResultBuffers();
  void extendTensorLiveness();
  void applyDeallocations(mlir::Block &block);
  void buildTimeline();

  void fail(mlir::Operation *op, const llvm::Twine &message);
  std::optional<int64_t> getCheckedCostBytes(mlir::OpResult result);
  std::optional<int64_t> getTensorBytes(mlir::OpResult result);
  std::optional<int64_t> getAllocationBytes(mlir::OpResult result);
  void addBuffer(BufferLiveRange::Kind kind, mlir::Value value,
                 mlir::Operation *op, int64_t bytes, unsigned begin,
                 unsigned end);
  /// The timeline index of the top-level op holding `op`.
  unsigned topIndex(mlir::Operation *op) const;

  struct Error {
    mlir::Operation *op;
    std::string message;
  };

  mlir::Operation *function;
  MemoryAnalysisOptions options;
  std::optional<Error> error;
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, unsigned> indexOf;
  /// While analysing: the buffer each value's storage is (an index).
  llvm::DenseMap<mlir::Value, unsigned> storageOf;
  llvm::SmallVector<int64_t> timeline;
  /// getTransientBytes of each timeline index.
  llvm::SmallVector<int64_t> transientBytes;
  llvm::SmallVector<BufferLiveRange> buffers;
  int64_t peakBytes = 0;
  unsigned peakIndex = 0;
  int64_t residentBytes = 0;
  int64_t totalBytes = 0;
  unsigned unsizedArguments = 0;
};

/// Writes {"functions": [<MemoryAnalysis::writeJSON of each analysis>]} to
/// `os`, pretty-printed. Analyses that failed are skipped.
void writeMemoryReport(llvm::ArrayRef<const MemoryAnalysis *> analyses,
                       llvm::raw_ostream &os);

/// The largest arena a function's data layout can address: kMaxTotalBytes,
/// or less when its index type is narrower than 64 bits (2^(bits-1) - 1, so
/// that every offset is a non-negative index).
int64_t getArenaLimit(mlir::Operation *scope);

/// The arena problem (Solver/Arena/Arena.h) of the buffers of `analysis` that
/// `select` accepts, in definition order (appended to `selected` when
/// given), live over their timeline ranges, offsets aligned to `alignment`
/// and the arena limited by getArenaLimit.
ArenaProblem getArenaProblem(
    const MemoryAnalysis &analysis, int64_t alignment,
    llvm::function_ref<bool(const BufferLiveRange &)> select,
    llvm::SmallVectorImpl<const BufferLiveRange *> *selected = nullptr);

} // namespace remat

#endif // REMAT_ANALYSIS_MEMORYANALYSIS_H
