//===- RunnerSupport.cpp - shared pieces of the step runners --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerSupport.h"

#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Support/Diagnostics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace remat;

int64_t ValueSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

unsigned ValueSpec::elemBytes() const {
  switch (kind) {
  case ElemKind::I1:
    return 1;
  case ElemKind::BF16:
    return 2;
  case ElemKind::F32:
  case ElemKind::I32:
    return 4;
  case ElemKind::F64:
  case ElemKind::I64:
    return 8;
  }
  return 8;
}

FailureOr<ValueSpec> remat::getValueSpec(Type type, const DataLayout &layout,
                                         StringRef tool, std::string &reason) {
  ValueSpec spec;
  llvm::raw_string_ostream os(spec.typeString);
  type.print(os);
  Type elementType = type;
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!isa<RankedTensorType, MemRefType>(type)) {
      reason = "only ranked tensors and memrefs are supported";
      return failure();
    }
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !memref.getLayout().isIdentity()) {
      reason = "only memrefs with the identity layout are supported";
      return failure();
    }
    if (!shaped.hasStaticShape()) {
      reason = ("dynamic shapes are not supported (" + tool +
                " builds inputs from static shapes)")
                   .str();
      return failure();
    }
    spec.isMemRef = true;
    spec.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    elementType = shaped.getElementType();
  }
  if (elementType.isBF16())
    spec.kind = ElemKind::BF16;
  else if (elementType.isF32())
    spec.kind = ElemKind::F32;
  else if (elementType.isF64())
    spec.kind = ElemKind::F64;
  else if (elementType.isSignlessInteger(1))
    spec.kind = ElemKind::I1;
  else if (elementType.isSignlessInteger(32))
    spec.kind = ElemKind::I32;
  else if (elementType.isSignlessInteger(64))
    spec.kind = ElemKind::I64;
  else {
    reason = "element type must be bf16, f32, f64, i1, i32 or i64";
    return failure();
  }
  // The storage model saturates instead of wrapping: a value this large
  // cannot be allocated, and its lowering would compute a wrapped size.
  std::optional<int64_t> bytes = getStorageBytes(type, layout);
  if (!bytes || isSaturated(*bytes)) {
    reason = "it takes more than 2^63 bytes, more than " + tool.str() +
             " can allocate";
    return failure();
  }
  return spec;
}

/// The entry named `name` in `module`, or null with `error` set.
static func::FuncOp findNamedEntry(ModuleOp module, StringRef name,
                                   StringRef source, std::string &error) {
  auto entry = module.lookupSymbol<func::FuncOp>(name);
  if (!entry && module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    error = ("entry '" + name +
             "' is already in the LLVM dialect; the runner needs the "
             "func.func form (tensors or memrefs) to build its inputs")
                .str();
  else if (!entry)
    error = ("no function named '" + name + "' in '" + source + "'").str();
  else if (entry.isExternal())
    error = ("entry '" + name + "' has no body").str();
  return error.empty() ? entry : nullptr;
}

/// The functions of `module` that a call in another function names, except
/// in `main` (a driver calling the step, never an entry itself).
static llvm::StringSet<> getCalledFunctions(ModuleOp module) {
  llvm::StringSet<> called;
  module.walk([&](CallOpInterface call) {
    auto callee =
        llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
    auto caller = call->getParentOfType<func::FuncOp>();
    StringRef callerName = caller ? caller.getName() : "";
    if (callee && callerName != "main" &&
        callerName != callee.getLeafReference())
      called.insert(callee.getLeafReference());
  });
  return called;
}

/// "@a, @b": the names of `funcs`.
static std::string joinNames(ArrayRef<func::FuncOp> funcs) {
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(
      funcs, os, [&](func::FuncOp func) { os << "@" << func.getName(); });
  return names;
}

func::FuncOp remat::findEntry(ModuleOp module, StringRef name, StringRef source,
                              std::string &error) {
  if (!name.empty())
    return findNamedEntry(module, name, source, error);
  SmallVector<func::FuncOp> publics;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic() && func.getName() != "main")
      publics.push_back(func);
  if (publics.empty()) {
    error = ("no entry function: '" + source +
             "' has no public func.func with a body other than 'main' (use "
             "--entry)")
                .str();
    return nullptr;
  }
  // A step's public helpers are called by it: they are no candidates.
  llvm::StringSet<> called = getCalledFunctions(module);
  SmallVector<func::FuncOp> roots(
      llvm::make_filter_range(publics, [&](func::FuncOp func) {
        return !called.contains(func.getName());
      }));
  if (roots.size() == 1)
    return roots.front();
  error = ("several possible entries in '" + source +
           "': " + joinNames(roots.empty() ? publics : roots) +
           (roots.empty() ? " (public functions with a body, each called by "
                            "another)"
                          : " (public functions with a body that no other "
                            "function calls)") +
           "; name one with --entry")
              .str();
  return nullptr;
}

/// The bfloat16 nearest to `f` (ties to even), as PyTorch rounds a float.
static uint16_t toBFloat16(float f) {
  llvm::APFloat value(f);
  bool lost = false;
  value.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue());
}

/// The value of the bfloat16 with bits `bits`.
static double fromBFloat16(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

uint64_t remat::randomBits(unsigned arg, int64_t i) {
  uint64_t z = (static_cast<uint64_t>(arg) << 32) + static_cast<uint64_t>(i) +
               0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The range of integer inputs without `remat.high` (docs/Running.md).
static constexpr int64_t kDefaultInputBound = 4;

int64_t remat::getInputBound(const ValueSpec &spec) {
  return spec.high.value_or(kDefaultInputBound);
}

void remat::fillInput(const ValueSpec &spec, unsigned arg, void *data) {
  int64_t n = spec.isMemRef ? spec.numElements() : 1;
  for (int64_t i = 0; i < n; ++i) {
    double f = std::sin(0.1 * static_cast<double>(i) + arg) * 0.5;
    int64_t k = (i + arg) % kDefaultInputBound;
    if (spec.bernoulli)
      f = std::ldexp(static_cast<double>(randomBits(arg, i) >> 11), -53) <
                  *spec.bernoulli
              ? 1.0
              : 0.0;
    if (spec.high)
      k = static_cast<int64_t>(randomBits(arg, i) %
                               static_cast<uint64_t>(*spec.high));
    switch (spec.kind) {
    case ElemKind::BF16:
      static_cast<uint16_t *>(data)[i] = toBFloat16(static_cast<float>(f));
      break;
    case ElemKind::F32:
      static_cast<float *>(data)[i] = static_cast<float>(f);
      break;
    case ElemKind::F64:
      static_cast<double *>(data)[i] = f;
      break;
    case ElemKind::I1:
      static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(k & 1);
      break;
    case ElemKind::I32:
      static_cast<int32_t *>(data)[i] = static_cast<int32_t>(k);
      break;
    case ElemKind::I64:
      static_cast<int64_t *>(data)[i] = k;
      break;
    }
  }
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

FailureOr<int64_t> remat::getGridProcessCount(ModuleOp module,
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

/// The element of type `T` at `p` (which may be unaligned).
template <typename T> static double load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}

static double loadAsDouble(ElemKind kind, const char *p) {
  switch (kind) {
  case ElemKind::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof(bits));
    return fromBFloat16(bits);
  }
  case ElemKind::F32:
    return load<float>(p);
  case ElemKind::F64:
    return load<double>(p);
  case ElemKind::I1:
    return static_cast<unsigned char>(*p) & 1;
  case ElemKind::I32:
    return load<int32_t>(p);
  case ElemKind::I64:
    return load<int64_t>(p);
  }
  return 0;
}

void remat::addElement(Checksum &c, ElemKind kind, const char *p,
                       unsigned bytes, bool keepValue) {
  double v = loadAsDouble(kind, p);
  c.sum += v;
  c.absSum += std::fabs(v);
  for (unsigned b = 0; b < bytes; ++b) {
    c.fnv ^= static_cast<unsigned char>(p[b]);
    c.fnv *= 0x100000001b3ULL; // FNV-1a 64 prime
  }
  if (keepValue)
    c.values.push_back(v);
}

void remat::addMemRef(Checksum &c, const ValueSpec &spec, const char *base,
                      int64_t offset, const int64_t *sizes,
                      const int64_t *strides, bool keepValues) {
  unsigned bytes = spec.elemBytes();
  int64_t n = spec.numElements();
  llvm::SmallVector<int64_t> index(spec.rank(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = offset;
    for (int64_t dim = 0; dim < spec.rank(); ++dim)
      linear += index[dim] * strides[dim];
    addElement(c, spec.kind, base + linear * bytes, bytes, keepValues);
    for (int64_t dim = spec.rank() - 1; dim >= 0; --dim) {
      if (++index[dim] < sizes[dim])
        break;
      index[dim] = 0;
    }
  }
}

unsigned remat::getLoweredSize(const ValueSpec &spec) {
  return spec.isMemRef ? 8 * (3 + 2 * spec.rank()) : spec.elemBytes();
}

unsigned remat::getLoweredAlign(const ValueSpec &spec) {
  return spec.isMemRef ? 8 : spec.elemBytes();
}

llvm::SmallVector<int64_t> remat::makeDescriptorWords(const ValueSpec &spec,
                                                      void *data) {
  llvm::SmallVector<int64_t> words;
  words.push_back(reinterpret_cast<int64_t>(data)); // allocated
  words.push_back(reinterpret_cast<int64_t>(data)); // aligned
  words.push_back(0);                               // offset
  words.append(spec.shape.begin(), spec.shape.end());
  llvm::SmallVector<int64_t> strides(spec.rank());
  int64_t stride = 1;
  for (int64_t d = spec.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= spec.shape[d];
  }
  words.append(strides.begin(), strides.end());
  return words;
}

std::string remat::formatHex64(uint64_t v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex(v, 18);
  return s;
}

//===----------------------------------------------------------------------===//
// Command-line plumbing
//===----------------------------------------------------------------------===//

namespace cl = llvm::cl;

char RunnerError::ID = 0;

void RunnerError::log(raw_ostream &os) const { os << message; }

std::error_code RunnerError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error remat::makeRunnerError(const Twine &message, int exitCode) {
  return llvm::make_error<RunnerError>(message, exitCode);
}

RunnerOptions::RunnerOptions(cl::OptionCategory &category,
                             StringRef pipelineHelp, StringRef printLoweredHelp)
    : category(category),
      inputFilename(cl::Positional, cl::desc("<input .mlir file>"),
                    cl::init("-"), cl::cat(category)),
      pipeline("pipeline", cl::desc(pipelineHelp), cl::init(""),
               cl::cat(category)),
      entryName("entry",
                cl::desc("Function to run (default: the first public function "
                         "with a body that is not 'main')"),
                cl::init(""), cl::cat(category)),
      emitJson("json", cl::desc("Print one JSON object on stdout"),
               cl::init(false), cl::cat(category)),
      repeatCount(
          "repeat",
          cl::desc("Run the entry N times (fresh inputs each time); times are "
                   "reported as min and median, the peak as the maximum"),
          cl::init(1), cl::cat(category)),
      printResults("print-results", cl::desc("Also print every result value"),
                   cl::init(false), cl::cat(category)),
      optLevel("opt-level",
               cl::desc("LLVM optimization level of the host JIT (0-3)"),
               cl::init(2), cl::cat(category)),
      printLowered("print-lowered", cl::desc(printLoweredHelp), cl::init(false),
                   cl::cat(category)) {}

llvm::Error RunnerOptions::parseCommandLine(int argc, char **argv,
                                            StringRef overview) {
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv, overview, &llvm::errs()))
    return makeRunnerError("bad command line (see above; --help lists the "
                           "options)");
  if (repeatCount == 0)
    return makeRunnerError("--repeat must be at least 1");
  if (optLevel > 3)
    return makeRunnerError("--opt-level must be 0, 1, 2 or 3");
  return llvm::Error::success();
}

void remat::registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<RematDialect>();
}

llvm::Expected<std::unique_ptr<RunnerInput>> RunnerInput::open(
    StringRef filename,
    function_ref<void(DialectRegistry &)> registerTranslations) {
  std::unique_ptr<RunnerInput> input(new RunnerInput());
  DialectRegistry registry;
  registerRunnerDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  if (registerTranslations)
    registerTranslations(registry);
  input->context = std::make_unique<MLIRContext>(registry);
  input->context->loadAllAvailableDialects();
  // Parsed, so that checkRegisteredOps can name them at their location.
  input->context->allowUnregisteredDialects();
  input->sourceMgr = std::make_unique<llvm::SourceMgr>();
  input->diagHandler = std::make_unique<SourceMgrDiagnosticHandler>(
      *input->sourceMgr, input->context.get());
  registerLongLineDiagnosticHandler(input->context.get());
  if (filename != "-" && !llvm::sys::fs::exists(filename))
    return makeRunnerError("cannot open '" + filename + "': no such file");
  std::string openError;
  auto file = openInputFile(filename, &openError);
  if (!file)
    return makeRunnerError("cannot open '" + filename + "': " + openError);
  input->sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  input->module =
      parseSourceFile<ModuleOp>(*input->sourceMgr, input->context.get());
  if (!input->module)
    return makeRunnerError("could not parse '" + filename + "'");
  return std::move(input);
}

RunnerInput::~RunnerInput() = default;

/// Reads how argument `arg` of `entry` is drawn (kBernoulliAttrName,
/// RematDialect::kHighAttrName) into `spec`; sets `reason` and fails on a
/// malformed or misplaced `remat.bernoulli` (the dialect verifies
/// `remat.high` when the input is parsed).
static LogicalResult readDrawAttributes(func::FuncOp entry, unsigned arg,
                                        ValueSpec &spec, std::string &reason) {
  bool isFloat = spec.kind == ElemKind::F32 || spec.kind == ElemKind::F64 ||
                 spec.kind == ElemKind::BF16;
  if (Attribute attr = entry.getArgAttr(arg, kBernoulliAttrName)) {
    auto p = dyn_cast<FloatAttr>(attr);
    if (!p || !isFloat || !(p.getValueAsDouble() >= 0.0) ||
        p.getValueAsDouble() > 1.0) {
      reason = ("'" + kBernoulliAttrName +
                "' must be a float probability in [0, 1] on a float argument")
                   .str();
      return failure();
    }
    spec.bernoulli = p.getValueAsDouble();
  }
  if (auto high = entry.getArgAttrOfType<IntegerAttr>(
          arg, RematDialect::kHighAttrName))
    spec.high = high.getInt();
  return success();
}

llvm::Error remat::getSignatureSpecs(StringRef tool, func::FuncOp entry,
                                     SmallVectorImpl<ValueSpec> &argSpecs,
                                     SmallVectorImpl<ValueSpec> &resultSpecs) {
  FunctionType funcType = entry.getFunctionType();
  DataLayout layout = DataLayout::closest(entry);
  for (auto [isResult, types] : {std::make_pair(false, funcType.getInputs()),
                                 std::make_pair(true, funcType.getResults())}) {
    for (auto [i, type] : llvm::enumerate(types)) {
      std::string reason;
      FailureOr<ValueSpec> spec = getValueSpec(type, layout, tool, reason);
      if (succeeded(spec) && !isResult &&
          failed(readDrawAttributes(entry, i, *spec, reason)))
        return makeRunnerError("argument #" + Twine(i) + " of '" +
                               entry.getName() + "': " + reason);
      if (failed(spec)) {
        std::string typeString;
        llvm::raw_string_ostream os(typeString);
        type.print(os);
        return makeRunnerError("unsupported type " + typeString + " of " +
                               (isResult ? "result" : "argument") + " #" +
                               Twine(i) + " of '" + entry.getName() +
                               "': " + reason);
      }
      (isResult ? resultSpecs : argSpecs).push_back(*spec);
    }
  }
  return llvm::Error::success();
}

uint64_t remat::getPhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

/// The bytes of `value` when it is of a static tensor or memref type.
static std::optional<int64_t> getStaticBytes(Value value,
                                             const DataLayout &layout) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<TensorType, BaseMemRefType>(type))
    return std::nullopt;
  return getStorageBytes(type, layout);
}

llvm::Error remat::checkRegisteredOps(ModuleOp module, StringRef filename,
                                      StringRef tool) {
  llvm::StringSet<> reported;
  module.walk([&](Operation *op) {
    if (!op->isRegistered() &&
        reported.insert(op->getName().getStringRef()).second)
      mlir::emitError(op->getLoc())
          << "unregistered op '" << op->getName() << "': " << tool
          << " lowers and runs only ops of registered dialects; replace it "
             "(with a linalg.generic, or a call to a func.func with a body) "
             "before running";
  });
  if (reported.empty())
    return llvm::Error::success();
  return makeRunnerError("'" + filename +
                         "' holds unregistered ops (see the diagnostics "
                         "above): " +
                         tool + " does not accept them");
}

llvm::Error remat::checkStorageSizes(ModuleOp module, StringRef filename,
                                     uint64_t limitBytes) {
  bool tooLarge = false;
  DataLayout layout = DataLayout::closest(module);
  auto report = [&](Value value, Location loc, const Twine &what) {
    std::optional<int64_t> bytes = getStaticBytes(value, layout);
    if (!bytes || (!isSaturated(*bytes) &&
                   (!limitBytes || static_cast<uint64_t>(*bytes) <= limitBytes)))
      return;
    InFlightDiagnostic diag = mlir::emitError(loc)
                              << what << " of type " << value.getType();
    if (isSaturated(*bytes))
      diag << " takes more than 2^63 bytes: it cannot be allocated";
    else
      diag << " takes " << *bytes << " bytes, more than the " << limitBytes
           << " bytes of memory of this machine";
    tooLarge = true;
  };
  module.walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      report(result, op->getLoc(),
             "result #" + Twine(result.getResultNumber()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          report(arg, arg.getLoc(),
                 "block argument #" + Twine(arg.getArgNumber()));
  });
  if (tooLarge)
    return makeRunnerError("'" + filename +
                           "' holds values too large to allocate (see the "
                           "diagnostics above)");
  return llvm::Error::success();
}

llvm::Error remat::lowerModule(ModuleOp module, StringRef pipeline,
                               StringRef filename,
                               function_ref<void(PassManager &)> buildDefault) {
  if (pipeline == "none")
    return llvm::Error::success();
  PassManager pm(module.getContext());
  if (pipeline.empty()) {
    buildDefault(pm);
  } else {
    // Accept both "builtin.module(a,b)" and the bare list "a,b".
    StringRef text = pipeline.trim();
    if (text.starts_with("builtin.module(") && text.ends_with(")"))
      text = text.drop_front(strlen("builtin.module(")).drop_back();
    std::string errorMessage;
    llvm::raw_string_ostream errorStream(errorMessage);
    if (failed(parsePassPipeline(text, pm, errorStream)))
      return makeRunnerError("invalid --pipeline '" + pipeline +
                             "': " + StringRef(errorMessage).trim());
  }
  if (failed(pm.run(module)))
    return makeRunnerError("lowering '" + filename +
                           "' failed (see the diagnostics above)");
  return llvm::Error::success();
}

llvm::Expected<JITEntry>
remat::compileEntry(ModuleOp module, StringRef entry, unsigned optLevel,
                    ArrayRef<StringRef> sharedLibPaths,
                    ArrayRef<std::pair<StringRef, void *>> symbols) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel);
  engineOptions.sharedLibPaths = sharedLibPaths;
  auto maybeEngine = ExecutionEngine::create(module, engineOptions);
  if (!maybeEngine)
    return makeRunnerError("JIT compilation failed: " +
                           llvm::toString(maybeEngine.takeError()));
  JITEntry result;
  result.engine = std::move(*maybeEngine);
  result.engine->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (auto [name, address] : symbols)
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  result.engine->initialize();
  auto packed = result.engine->lookupPacked(entry);
  if (!packed)
    return makeRunnerError("cannot find '" + entry + "' in the JIT'd code: " +
                           llvm::toString(packed.takeError()));
  result.call = *packed;
  return std::move(result);
}

PackedCall::PackedCall(ArrayRef<ValueSpec> argSpecs,
                       ArrayRef<ValueSpec> resultSpecs,
                       ArrayRef<void *> memRefData)
    : resultSpecs(resultSpecs) {
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (spec.isMemRef)
      argWords.push_back(makeDescriptorWords(spec, memRefData[i]));
    else
      argWords.push_back({0}); // 8 bytes hold any scalar kind
  }
  for (auto &words : argWords)
    for (int64_t &w : words)
      packedArgs.push_back(&w);
  unsigned resultBytes = 0;
  for (const ValueSpec &spec : resultSpecs) {
    resultBytes = llvm::alignTo(resultBytes, getLoweredAlign(spec));
    resultOffsets.push_back(resultBytes);
    resultBytes += getLoweredSize(spec);
  }
  resultStorage.assign(llvm::divideCeil(resultBytes, 8) + 1, 0);
  if (!resultSpecs.empty())
    packedArgs.push_back(resultStorage.data());
}

void PackedCall::clearResults() {
  std::fill(resultStorage.begin(), resultStorage.end(), 0);
}

const char *PackedCall::getResult(unsigned i) const {
  return reinterpret_cast<const char *>(resultStorage.data()) +
         resultOffsets[i];
}

DescriptorView PackedCall::getMemRefResult(unsigned i) const {
  const int64_t *w = reinterpret_cast<const int64_t *>(getResult(i));
  int64_t rank = resultSpecs[i].rank();
  return {reinterpret_cast<void *>(w[0]), reinterpret_cast<const char *>(w[1]),
          w[2], w + 3, w + 3 + rank};
}

SmallVector<Checksum> PackedCall::checksumResults(
    bool keepValues,
    function_ref<const char *(unsigned, const DescriptorView &)> readMemRef)
    const {
  SmallVector<Checksum> checksums(resultSpecs.size());
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    if (!spec.isMemRef) {
      addElement(checksums[i], spec.kind, getResult(i), spec.elemBytes(),
                 keepValues);
      continue;
    }
    DescriptorView d = getMemRefResult(i);
    addMemRef(checksums[i], spec, readMemRef(i, d), /*offset=*/0, d.sizes,
              d.strides, keepValues);
  }
  return checksums;
}

SmallVector<void *> PackedCall::getResultAllocations() const {
  SmallVector<void *> allocations;
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    if (!spec.isMemRef)
      continue;
    void *allocated = getMemRefResult(i).allocated;
    if (!llvm::is_contained(allocations, allocated))
      allocations.push_back(allocated);
  }
  return allocations;
}

MinMedian remat::getMinAndMedian(ArrayRef<double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  llvm::sort(sorted);
  return {sorted.front(), sorted[sorted.size() / 2]};
}
