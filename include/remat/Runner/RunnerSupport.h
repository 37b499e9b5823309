//===- RunnerSupport.h - shared pieces of the step runners ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the training-step runners (remat-run on the CPU, remat-gpu-run on a
// CUDA GPU) must agree on so that their outputs are comparable: which types
// they accept, the deterministic inputs, the lowered calling convention of
// the entry, and the per-result checksums; and the plumbing they share
// (options, errors, parsing, lowering, JIT, the packed call). Every function
// returns its errors (RunnerError); only a tool's main exits (runnerMain,
// RunnerMain.h, drives them).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNNERSUPPORT_H
#define REMAT_RUNNER_RUNNERSUPPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace mlir {
class DataLayout;
class DialectRegistry;
class ExecutionEngine;
class MLIRContext;
class PassManager;
class SourceMgrDiagnosticHandler;
} // namespace mlir

namespace remat {

/// Scalar element kinds the runners can build and read.
enum class ElemKind { BF16, F32, F64, I1, I32, I64 };

/// How one argument or result of the entry is passed: a scalar, or a ranked
/// static memref (tensors become identity-layout memrefs when bufferized).
struct ValueSpec {
  ElemKind kind = ElemKind::F32;
  bool isMemRef = false;
  llvm::SmallVector<int64_t> shape;
  std::string typeString;
  /// A float argument marked `remat.bernoulli = p`: a random 0/1 mask, 1
  /// with probability p (a dropout mask; see fillInput).
  std::optional<double> bernoulli;
  /// An integer argument marked `remat.high = h`: values in [0, h) (token
  /// ids, class labels; see fillInput).
  std::optional<int64_t> high;

  int64_t numElements() const;
  unsigned elemBytes() const;
  int64_t rank() const { return shape.size(); }
  /// Bytes of the whole value (elements x element size).
  uint64_t byteSize() const { return numElements() * elemBytes(); }
};

/// Maps an argument or result type of the entry (before lowering) to a
/// ValueSpec, or sets `reason` and fails: a type the runners cannot build or
/// read, or a value too large to allocate (its bytes under `layout`
/// saturate the storage model: elements x element size would wrap around).
/// `tool` names the runner in the reasons.
mlir::FailureOr<ValueSpec> getValueSpec(mlir::Type type,
                                        const mlir::DataLayout &layout,
                                        llvm::StringRef tool,
                                        std::string &reason);

/// The entry named `name`; when `name` is empty, the public func.func with a
/// body other than `main` that no other function calls, if exactly one is
/// (its public helpers are no candidates). Sets `error` (naming `source`, the
/// input file, and the candidates when there are several) and returns null
/// on failure.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, llvm::StringRef name,
                             llvm::StringRef source, std::string &error);

/// The argument attributes that say how the runners draw an argument's
/// values: `remat.bernoulli = 0.9 : f64` on a float argument (a dropout
/// mask: 1 with probability 0.9, else 0), and the remat dialect's
/// `remat.high = 512 : i64` on an integer one (values in [0, 512): token
/// ids, labels; RematDialect::kHighAttrName, verified by the dialect).
inline constexpr llvm::StringLiteral kBernoulliAttrName = "remat.bernoulli";

/// The integers an integer argument described by `spec` is drawn from (see
/// fillInput) lie in [0, getInputBound(spec)): `spec.high`, else 4.
int64_t getInputBound(const ValueSpec &spec);

/// Element `i` of the documented pseudo-random stream of argument `arg`:
/// the first output of SplitMix64 seeded with `arg * 2^32 + i`.
uint64_t randomBits(unsigned arg, int64_t i);

/// The documented deterministic input: element `i` (row-major) of argument
/// `arg` is sin(0.1 * i + arg) * 0.5 for floats, (i + arg) mod 4 for
/// integers and (i + arg) mod 2 for booleans (i1, one byte each); with
/// `spec.bernoulli = p`, 1 when randomBits(arg, i) / 2^64 < p (its top 53
/// bits, as a double in [0, 1)) and 0 otherwise; with `spec.high = h`,
/// randomBits(arg, i) mod h. Scalars are element 0. Writes
/// `spec.numElements()` elements (one for scalars) to `data`.
void fillInput(const ValueSpec &spec, unsigned arg, void *data);

//===----------------------------------------------------------------------===//
// Data-parallel inputs
//===----------------------------------------------------------------------===//

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

/// The number of processes of every `shard.grid` of `module` (its shape's
/// product), or 0 when it has none. Sets `error` and fails when two grids
/// differ in size.
mlir::FailureOr<int64_t> getGridProcessCount(mlir::ModuleOp module,
                                             std::string &error);

/// Fills `data` with the documented input (fillInput) of argument `arg`,
/// whose whole value has spec `global`, restricted to block `index` of
/// `split` (the whole value when replicated): rank `index` of a
/// data-parallel run thus holds exactly its slice of the single-process
/// input. `data` holds the block's elements in row-major order.
void fillInputBlock(const ValueSpec &global, unsigned arg,
                    const ArgSplit &split, int64_t index, void *data);

/// Checksum of one result over its elements in row-major order: the sum, the
/// sum of absolute values, and the FNV-1a 64-bit hash of the raw bytes.
struct Checksum {
  double sum = 0;
  double absSum = 0;
  uint64_t fnv = 0xcbf29ce484222325ULL; // FNV-1a 64 offset basis
  llvm::SmallVector<double> values;     // kept only when asked
};

/// Adds the element at `p` to `c`.
void addElement(Checksum &c, ElemKind kind, const char *p, unsigned bytes,
                bool keepValue);

/// Adds every element of a strided memref (row-major logical order) whose
/// aligned pointer is `base`, offset, sizes and strides in elements.
void addMemRef(Checksum &c, const ValueSpec &spec, const char *base,
               int64_t offset, const int64_t *sizes, const int64_t *strides,
               bool keepValues);

/// Size and alignment of one lowered value in the LLVM return struct: a
/// memref descriptor {ptr, ptr, i64, [rank x i64], [rank x i64]} or a scalar.
unsigned getLoweredSize(const ValueSpec &spec);
unsigned getLoweredAlign(const ValueSpec &spec);

/// The lowered descriptor fields of an identity-layout memref at `data`.
llvm::SmallVector<int64_t> makeDescriptorWords(const ValueSpec &spec,
                                               void *data);

/// `v` as 0x-prefixed 16-digit hex.
std::string formatHex64(uint64_t v);

//===----------------------------------------------------------------------===//
// Command-line plumbing
//===----------------------------------------------------------------------===//

/// An error of a runner: its message (printed "<tool>: error: <message>")
/// and the status the tool exits with.
class RunnerError : public llvm::ErrorInfo<RunnerError> {
public:
  static char ID;
  RunnerError(const llvm::Twine &message, int exitCode)
      : message(message.str()), exitCode(exitCode) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  int getExitCode() const { return exitCode; }

private:
  std::string message;
  int exitCode;
};

/// A RunnerError: exit status 1 unless `exitCode` says otherwise.
llvm::Error makeRunnerError(const llvm::Twine &message, int exitCode = 1);

/// The options every runner takes, registered in `category` on
/// construction (runnerMain constructs them).
struct RunnerOptions {
  /// `pipelineHelp` and `printLoweredHelp` describe the runner's lowering.
  RunnerOptions(llvm::cl::OptionCategory &category,
                llvm::StringRef pipelineHelp, llvm::StringRef printLoweredHelp);

  /// Parses the command line, showing only the options of `category` in
  /// --help. Fails on an unknown or malformed option (LLVM's message goes to
  /// stderr) and when --repeat or --opt-level is out of range.
  llvm::Error parseCommandLine(int argc, char **argv,
                               llvm::StringRef overview);

  llvm::cl::OptionCategory &category;

  llvm::cl::opt<std::string> inputFilename;
  llvm::cl::opt<std::string> pipeline;
  llvm::cl::opt<std::string> entryName;
  llvm::cl::opt<bool> emitJson;
  llvm::cl::opt<unsigned> repeatCount;
  llvm::cl::opt<bool> printResults;
  llvm::cl::opt<unsigned> optLevel;
  llvm::cl::opt<bool> printLowered;
};

/// Registers what a runner parses: every upstream dialect and extension and
/// the remat dialect (the caller adds the LLVM IR translations it needs).
void registerRunnerDialects(mlir::DialectRegistry &registry);

/// The input of a runner: a context holding the runner dialects (see
/// registerRunnerDialects), the builtin and LLVM dialects' LLVM IR
/// translations (every JIT needs them) and those `registerTranslations`
/// adds (may be null),
/// the module parsed from a file, and the handler that prints the
/// diagnostics of the context with their locations in the file on stderr
/// (also while the module is lowered).
class RunnerInput {
public:
  /// Opens and parses `filename` ("-" is stdin). Fails when the file is
  /// missing or does not parse (the parser's diagnostics say where). Ops of
  /// unregistered dialects parse, for checkRegisteredOps to refuse them.
  static llvm::Expected<std::unique_ptr<RunnerInput>>
  open(llvm::StringRef filename,
       llvm::function_ref<void(mlir::DialectRegistry &)> registerTranslations);
  ~RunnerInput();

  mlir::ModuleOp getModule() { return *module; }

private:
  RunnerInput() = default;

  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<llvm::SourceMgr> sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> diagHandler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// The ValueSpecs of the arguments and results of `entry`. Fails naming the
/// first type it cannot handle; `tool` names the runner in the reasons.
llvm::Error getSignatureSpecs(llvm::StringRef tool, mlir::func::FuncOp entry,
                              llvm::SmallVectorImpl<ValueSpec> &argSpecs,
                              llvm::SmallVectorImpl<ValueSpec> &resultSpecs);

/// Fails, after a located error at the first op of each name, when `module`
/// holds ops that no registered dialect defines (custom ops of another
/// stack): `tool` cannot lower or run them. `filename` names the input.
/// RunnerInput::open parses such ops so that this can name them.
llvm::Error checkRegisteredOps(mlir::ModuleOp module, llvm::StringRef filename,
                               llvm::StringRef tool);

/// Fails, after a located error at each, when a value of `module` (an op
/// result or a block argument of a static tensor or memref type) takes more
/// bytes than the storage model can count (2^63: its lowering would compute
/// a wrapped-around allocation size) or than `limitBytes` (the memory of the
/// machine: its allocation would fail inside the JIT'd code, which does not
/// check). `filename` names the input.
llvm::Error checkStorageSizes(mlir::ModuleOp module, llvm::StringRef filename,
                              uint64_t limitBytes);

/// The physical memory of this machine in bytes (0 when unknown).
uint64_t getPhysicalMemoryBytes();

/// Runs the lowering of --pipeline on `module`: nothing for "none",
/// `buildDefault` for the empty string, otherwise the given pass pipeline
/// ("builtin.module(a,b)" or "a,b"). Fails when the pipeline does not parse
/// or fails on `filename`.
llvm::Error
lowerModule(mlir::ModuleOp module, llvm::StringRef pipeline,
            llvm::StringRef filename,
            llvm::function_ref<void(mlir::PassManager &)> buildDefault);

/// The entry of a JIT-compiled module, called with ExecutionEngine's packed
/// convention (see PackedCall).
struct JITEntry {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void (*call)(void **) = nullptr;
};

/// Initializes the native target, JIT-compiles `module` (in the LLVM
/// dialect) at LLVM `optLevel`, loading `sharedLibPaths` and binding each
/// (name, address) of `symbols` in the JIT'd code, runs its global
/// constructors, and looks up the packed wrapper of `entry`.
llvm::Expected<JITEntry>
compileEntry(mlir::ModuleOp module, llvm::StringRef entry, unsigned optLevel,
             llvm::ArrayRef<llvm::StringRef> sharedLibPaths,
             llvm::ArrayRef<std::pair<llvm::StringRef, void *>> symbols);

/// The fields of a lowered memref descriptor (every field 8 bytes).
struct DescriptorView {
  void *allocated;
  const char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

/// The arguments of a packed call (ExecutionEngine::lookupPacked) of the
/// lowered entry: every argument as its expanded descriptor words (memrefs)
/// or one 8-byte word (scalars), then the storage of the results (nothing,
/// one value, or the struct of the results, naturally aligned).
class PackedCall {
public:
  /// `memRefData[i]` is the buffer of argument `i` when it is a memref.
  PackedCall(llvm::ArrayRef<ValueSpec> argSpecs,
             llvm::ArrayRef<ValueSpec> resultSpecs,
             llvm::ArrayRef<void *> memRefData);
  PackedCall(const PackedCall &) = delete;
  PackedCall &operator=(const PackedCall &) = delete;

  /// The 8-byte word scalar argument `i` is passed in.
  void *getScalarArg(unsigned i) { return argWords[i].data(); }
  /// The pointer array to hand to the packed function.
  void **getArgs() { return packedArgs.data(); }
  /// Zeroes the result storage.
  void clearResults();
  /// Where result `i` lies in the result storage after the call.
  const char *getResult(unsigned i) const;
  /// The descriptor of memref result `i` after the call.
  DescriptorView getMemRefResult(unsigned i) const;
  /// The checksums of the results after the call. Scalars are read from the
  /// result storage; memref result `i` from the host pointer
  /// `readMemRef(i, descriptor)` returns, which addresses the element at the
  /// descriptor's offset (and stays valid until the next call of readMemRef).
  llvm::SmallVector<Checksum> checksumResults(
      bool keepValues,
      llvm::function_ref<const char *(unsigned, const DescriptorView &)>
          readMemRef) const;
  /// The distinct allocated pointers of the memref results after the call.
  llvm::SmallVector<void *> getResultAllocations() const;

private:
  llvm::SmallVector<ValueSpec> resultSpecs;
  llvm::SmallVector<llvm::SmallVector<int64_t>> argWords;
  llvm::SmallVector<unsigned> resultOffsets;
  llvm::SmallVector<int64_t> resultStorage;
  llvm::SmallVector<void *> packedArgs;
};

/// The measurements of one run of the entry: the statistics of the
/// allocator (`MemoryStats`, which has a peakBytes field), the bytes the
/// results hold when the entry returns, the bytes still allocated after the
/// runner freed the results, and the time of the call.
template <typename MemoryStats> struct RunStats {
  MemoryStats memory;
  uint64_t returnedBytes = 0;
  uint64_t leakedBytes = 0;
  double seconds = 0;
  /// How far the process's peak resident set rose during the run
  /// (rematAllocTrackerRSSGrowth: the system allocator's own footprint);
  /// -1 when not measured.
  int64_t rssGrowthBytes = -1;
};

/// The run with the largest peak (the first of equals) of `runs` (not empty).
template <typename MemoryStats>
const RunStats<MemoryStats> &
getWorstRun(llvm::ArrayRef<RunStats<MemoryStats>> runs) {
  const RunStats<MemoryStats> *worst = &runs.front();
  for (const RunStats<MemoryStats> &r : runs)
    if (r.memory.peakBytes > worst->memory.peakBytes)
      worst = &r;
  return *worst;
}

/// The minimum and the median (upper median) of some measurements.
struct MinMedian {
  double min = 0;
  double median = 0;
};
/// The minimum and the median of `values` (not empty).
MinMedian getMinAndMedian(llvm::ArrayRef<double> values);

} // namespace remat

#endif // REMAT_RUNNER_RUNNERSUPPORT_H
