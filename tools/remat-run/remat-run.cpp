//===- remat-run.cpp - run a training step and measure its heap -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// remat-run lowers a module holding a tensor-level (or bufferized) training
// step in-process, JIT-compiles it with mlir::ExecutionEngine, runs the entry
// function on deterministic inputs built from its signature, and reports for
// every result a checksum (sum, sum of |x|, FNV-1a hash of the raw bytes),
// the measured peak heap bytes, the number of allocations, and the time.
//
//   remat-run step.mlir [--pipeline=<pass pipeline>] [--entry=<fn>] [--json]
//                       [--repeat=N] [--print-results]
//
// Heap bytes are counted by libremat_alloc_tracker (lib/Runtime), whose
// _mlir_memref_to_llvm_alloc/_free the JIT'd code is bound to. See
// docs/Running.md for the input formula and what the peak includes.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Runtime/AllocTracker.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace cl = llvm::cl;

static cl::OptionCategory runCategory("remat-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"), cl::cat(runCategory));

static cl::opt<std::string> pipelineString(
    "pipeline",
    cl::desc("Pass pipeline that lowers the module to the LLVM dialect, e.g. "
             "'builtin.module(remat-lower-to-cpu{buffer-alignment=64})'. "
             "Default: remat-lower-to-cpu with its default options "
             "(deallocate=false if the input already holds deallocations). "
             "'none' runs no pass."),
    cl::init(""), cl::cat(runCategory));

static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the first public function "
                       "with a body that is not 'main')"),
              cl::init(""), cl::cat(runCategory));

static cl::opt<bool> emitJson("json",
                              cl::desc("Print one JSON object on stdout"),
                              cl::init(false), cl::cat(runCategory));

static cl::opt<unsigned> repeatCount(
    "repeat",
    cl::desc("Run the entry N times (fresh inputs each time); the time is "
             "reported as min and median, the peak as the maximum"),
    cl::init(1), cl::cat(runCategory));

static cl::opt<bool> printResults("print-results",
                                  cl::desc("Also print every result value"),
                                  cl::init(false), cl::cat(runCategory));

static cl::opt<unsigned> optLevel(
    "opt-level", cl::desc("LLVM optimization level of the JIT (0-3)"),
    cl::init(2), cl::cat(runCategory));

static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Libraries to load into the JIT (comma separated)"),
               cl::CommaSeparated, cl::cat(runCategory));

static cl::opt<bool> printLowered(
    "print-lowered",
    cl::desc("Print the module after the lowering pipeline and exit"),
    cl::init(false), cl::cat(runCategory));

namespace {

/// Scalar element kinds remat-run can build and read.
enum class ElemKind { F32, F64, I32, I64 };

/// How one argument or result of the entry is passed: a scalar, or a ranked
/// static memref (tensors become identity-layout memrefs when bufferized).
struct ValueSpec {
  ElemKind kind;
  bool isMemRef = false;
  SmallVector<int64_t> shape;
  std::string typeString;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  unsigned elemBytes() const {
    return kind == ElemKind::F32 || kind == ElemKind::I32 ? 4 : 8;
  }
  bool isFloat() const {
    return kind == ElemKind::F32 || kind == ElemKind::F64;
  }
  int64_t rank() const { return shape.size(); }
};

/// A memref descriptor as laid out by the LLVM lowering:
/// {ptr allocated, ptr aligned, i64 offset, [rank x i64] sizes,
///  [rank x i64] strides}, every field 8 bytes.
struct DescriptorView {
  void *allocated;
  void *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

/// Exit with a CLI error.
[[noreturn]] void fail(const Twine &message) {
  llvm::errs() << "remat-run: error: " << message << "\n";
  std::exit(1);
}

std::string typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// Maps `type` (an argument or result type of the entry, before lowering)
/// to a ValueSpec, or returns a reason why remat-run cannot handle it.
FailureOr<ValueSpec> getValueSpec(Type type, std::string &reason) {
  ValueSpec spec;
  spec.typeString = typeToString(type);
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
      reason = "dynamic shapes are not supported (remat-run builds inputs "
               "from static shapes)";
      return failure();
    }
    spec.isMemRef = true;
    spec.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    elementType = shaped.getElementType();
  }
  if (elementType.isF32())
    spec.kind = ElemKind::F32;
  else if (elementType.isF64())
    spec.kind = ElemKind::F64;
  else if (elementType.isSignlessInteger(32))
    spec.kind = ElemKind::I32;
  else if (elementType.isSignlessInteger(64))
    spec.kind = ElemKind::I64;
  else {
    reason = "element type must be f32, f64, i32 or i64";
    return failure();
  }
  return spec;
}

/// The documented input formula: element `i` (row-major) of argument `arg`
/// is sin(0.1 * i + arg) * 0.5 for floats and (i + arg) mod 4 for integers.
/// Scalars are element 0.
void fillInput(const ValueSpec &spec, unsigned arg, void *data) {
  int64_t n = spec.isMemRef ? spec.numElements() : 1;
  for (int64_t i = 0; i < n; ++i) {
    double f = std::sin(0.1 * static_cast<double>(i) + arg) * 0.5;
    int64_t k = (i + arg) % 4;
    switch (spec.kind) {
    case ElemKind::F32:
      static_cast<float *>(data)[i] = static_cast<float>(f);
      break;
    case ElemKind::F64:
      static_cast<double *>(data)[i] = f;
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

double loadAsDouble(ElemKind kind, const char *p) {
  switch (kind) {
  case ElemKind::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElemKind::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case ElemKind::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElemKind::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

/// Checksum of one result: computed over its elements in row-major order.
struct Checksum {
  double sum = 0;
  double absSum = 0;
  uint64_t fnv = 0xcbf29ce484222325ULL; // FNV-1a 64 offset basis
  SmallVector<double> values;
};

void addElement(Checksum &c, ElemKind kind, const char *p, unsigned bytes,
                bool keep) {
  double v = loadAsDouble(kind, p);
  c.sum += v;
  c.absSum += std::fabs(v);
  for (unsigned b = 0; b < bytes; ++b) {
    c.fnv ^= static_cast<unsigned char>(p[b]);
    c.fnv *= 0x100000001b3ULL; // FNV-1a 64 prime
  }
  if (keep)
    c.values.push_back(v);
}

/// Walks a strided memref in row-major logical order.
void checksumMemRef(const ValueSpec &spec, const DescriptorView &d,
                    Checksum &c) {
  unsigned bytes = spec.elemBytes();
  int64_t n = spec.numElements();
  SmallVector<int64_t> index(spec.rank(), 0);
  const char *base = static_cast<const char *>(d.aligned);
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = d.offset;
    for (int64_t dim = 0; dim < spec.rank(); ++dim)
      linear += index[dim] * d.strides[dim];
    addElement(c, spec.kind, base + linear * bytes, bytes, printResults);
    for (int64_t dim = spec.rank() - 1; dim >= 0; --dim) {
      if (++index[dim] < d.sizes[dim])
        break;
      index[dim] = 0;
    }
  }
}

/// Size and alignment of one lowered result in the LLVM return struct
/// (x86-64/AArch64 natural alignment, as the default data layout gives).
unsigned loweredSize(const ValueSpec &spec) {
  return spec.isMemRef ? 8 * (3 + 2 * spec.rank()) : spec.elemBytes();
}
unsigned loweredAlign(const ValueSpec &spec) {
  return spec.isMemRef ? 8 : spec.elemBytes();
}

/// Measurements of one run.
struct RunStats {
  RematAllocStats alloc;
  uint64_t returnedBytes = 0;
  uint64_t leakedBytes = 0;
  double seconds = 0;
};

std::string hex64(uint64_t v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex(v, 18);
  return s;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  mlir::registerAllPasses();
  remat::registerAllPasses();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-run: lower, JIT-execute and measure a training step\n");

  if (repeatCount == 0)
    fail("--repeat must be at least 1");
  if (optLevel > 3)
    fail("--opt-level must be 0, 1, 2 or 3");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<remat::RematDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // Parse. Missing files and syntax errors are reported by the parser's
  // diagnostics on stderr.
  if (inputFilename != "-" && !llvm::sys::fs::exists(inputFilename))
    fail("cannot open '" + inputFilename + "': no such file");
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::string openError;
  auto file = openInputFile(inputFilename, &openError);
  if (!file)
    fail("cannot open '" + inputFilename + "': " + openError);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    fail("could not parse '" + inputFilename + "'");

  // Pick the entry and read its signature before lowering erases it.
  func::FuncOp entry;
  if (!entryName.empty()) {
    entry = module->lookupSymbol<func::FuncOp>(entryName);
    if (!entry) {
      if (module->lookupSymbol<LLVM::LLVMFuncOp>(entryName))
        fail("entry '" + entryName +
             "' is already in the LLVM dialect; remat-run needs the "
             "func.func form (tensors or memrefs) to build its inputs");
      fail("no function named '" + entryName + "' in '" + inputFilename +
           "'");
    }
    if (entry.isExternal())
      fail("entry '" + entryName + "' has no body");
  } else {
    for (auto func : module->getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic() || func.getName() == "main")
        continue;
      entry = func;
      break;
    }
    if (!entry)
      fail("no entry function: '" + inputFilename +
           "' has no public func.func with a body other than 'main' (use "
           "--entry)");
  }
  std::string name = entry.getName().str();

  SmallVector<ValueSpec> argSpecs, resultSpecs;
  FunctionType funcType = entry.getFunctionType();
  for (auto [i, type] : llvm::enumerate(funcType.getInputs())) {
    std::string reason;
    FailureOr<ValueSpec> spec = getValueSpec(type, reason);
    if (failed(spec))
      fail("unsupported type " + typeToString(type) + " of argument #" +
           Twine(i) + " of '" + name + "': " + reason);
    argSpecs.push_back(*spec);
  }
  for (auto [i, type] : llvm::enumerate(funcType.getResults())) {
    std::string reason;
    FailureOr<ValueSpec> spec = getValueSpec(type, reason);
    if (failed(spec))
      fail("unsupported type " + typeToString(type) + " of result #" +
           Twine(i) + " of '" + name + "': " + reason);
    resultSpecs.push_back(*spec);
  }

  // Keep only the entry and the functions it references (transitively):
  // the others need not be lowered nor compiled.
  {
    llvm::SmallPtrSet<Operation *, 8> reachable;
    SmallVector<Operation *> worklist{entry};
    SymbolTableCollection symbolTables;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!reachable.insert(op).second)
        continue;
      op->walk([&](Operation *nested) {
        for (NamedAttribute attr : nested->getAttrs()) {
          attr.getValue().walk([&](SymbolRefAttr ref) {
            if (Operation *target = symbolTables.lookupNearestSymbolFrom(
                    nested, ref))
              worklist.push_back(target);
          });
        }
      });
    }
    for (auto func :
         llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
      if (!reachable.contains(func))
        func.erase();
  }

  // Lower.
  auto compileStart = std::chrono::steady_clock::now();
  if (pipelineString != "none") {
    PassManager pm(&context);
    if (pipelineString.empty()) {
      remat::RematLowerToCPUPipelineOptions options;
      // Ownership-based deallocation refuses input that already frees its
      // buffers (bufferized IR written by hand or by another tool).
      bool hasDeallocs = false;
      module->walk([&](memref::DeallocOp) { hasDeallocs = true; });
      if (hasDeallocs)
        options.deallocate = false;
      remat::buildRematLowerToCPUPipeline(pm, options);
    } else {
      // Accept both "builtin.module(a,b)" and the bare list "a,b".
      StringRef text = StringRef(pipelineString).trim();
      if (text.starts_with("builtin.module(") && text.ends_with(")"))
        text = text.drop_front(strlen("builtin.module(")).drop_back();
      std::string errorMessage;
      llvm::raw_string_ostream errorStream(errorMessage);
      if (failed(parsePassPipeline(text, pm, errorStream)))
        fail("invalid --pipeline '" + pipelineString + "': " +
             StringRef(errorMessage).trim());
    }
    if (failed(pm.run(*module)))
      fail("lowering '" + inputFilename + "' failed (see the diagnostics "
                                          "above)");
  }
  if (printLowered) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  auto lowered = module->lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!lowered)
    fail("after lowering, '" + name +
         "' is not an llvm.func: the pipeline must lower to the LLVM dialect");

  // JIT.
  std::vector<std::string> libStorage(sharedLibs.begin(), sharedLibs.end());
#ifdef REMAT_MLIR_C_RUNNER_UTILS
  // memref.copy of non-contiguous views calls memrefCopy.
  if (llvm::sys::fs::exists(REMAT_MLIR_C_RUNNER_UTILS))
    libStorage.push_back(REMAT_MLIR_C_RUNNER_UTILS);
#endif
  SmallVector<StringRef> libPaths(libStorage.begin(), libStorage.end());
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel.getValue());
  engineOptions.sharedLibPaths = libPaths;
  auto maybeEngine = ExecutionEngine::create(*module, engineOptions);
  if (!maybeEngine)
    fail("JIT compilation failed: " + llvm::toString(maybeEngine.takeError()));
  std::unique_ptr<ExecutionEngine> engine = std::move(*maybeEngine);
  // Bind the allocation hooks to the tracker explicitly, whatever else the
  // process or the shared libraries export.
  engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](StringRef symbol, void *address) {
      map[interner(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                               llvm::JITSymbolFlags::Exported};
    };
    add("_mlir_memref_to_llvm_alloc",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
    add("_mlir_memref_to_llvm_aligned_alloc",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc));
    add("_mlir_memref_to_llvm_free",
        reinterpret_cast<void *>(&_mlir_memref_to_llvm_free));
    return map;
  });
  engine->initialize();
  auto packed = engine->lookupPacked(name);
  if (!packed)
    fail("cannot find '" + name +
         "' in the JIT'd code: " + llvm::toString(packed.takeError()));
  double compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    compileStart)
          .count();

  // Inputs: owned by remat-run, allocated outside the tracker (not counted).
  // Each memref argument is passed as its expanded descriptor fields.
  uint64_t inputBytes = 0;
  SmallVector<void *> inputBuffers;
  SmallVector<SmallVector<int64_t>> argWords; // storage of every LLVM arg
  for (const ValueSpec &spec : argSpecs) {
    SmallVector<int64_t> words;
    if (spec.isMemRef) {
      uint64_t bytes = spec.numElements() * spec.elemBytes();
      inputBytes += bytes;
      void *buffer = std::aligned_alloc(64, std::max<uint64_t>(
                                                64, llvm::alignTo(bytes, 64)));
      if (!buffer)
        fail("out of memory allocating inputs");
      inputBuffers.push_back(buffer);
      words.push_back(reinterpret_cast<int64_t>(buffer)); // allocated
      words.push_back(reinterpret_cast<int64_t>(buffer)); // aligned
      words.push_back(0);                                 // offset
      for (int64_t d : spec.shape)
        words.push_back(d);
      int64_t stride = 1;
      SmallVector<int64_t> strides(spec.rank());
      for (int64_t d = spec.rank() - 1; d >= 0; --d) {
        strides[d] = stride;
        stride *= spec.shape[d];
      }
      words.append(strides.begin(), strides.end());
    } else {
      words.push_back(0); // scalar, filled below (8 bytes hold any kind)
      inputBuffers.push_back(nullptr);
    }
    argWords.push_back(std::move(words));
  }
  SmallVector<void *> packedArgs;
  for (auto &words : argWords)
    for (int64_t &w : words)
      packedArgs.push_back(&w);

  // Result storage: nothing, one value, or a struct of the results.
  SmallVector<unsigned> resultOffsets;
  unsigned resultBytes = 0;
  for (const ValueSpec &spec : resultSpecs) {
    resultBytes = llvm::alignTo(resultBytes, loweredAlign(spec));
    resultOffsets.push_back(resultBytes);
    resultBytes += loweredSize(spec);
  }
  SmallVector<int64_t> resultStorage(llvm::divideCeil(resultBytes, 8) + 1, 0);
  if (!resultSpecs.empty())
    packedArgs.push_back(resultStorage.data());

  SmallVector<RunStats> runs;
  SmallVector<Checksum> checksums;
  for (unsigned run = 0; run < repeatCount; ++run) {
    // Fresh inputs every run: the entry may update its arguments in place.
    for (auto [i, spec] : llvm::enumerate(argSpecs)) {
      if (spec.isMemRef)
        fillInput(spec, i, inputBuffers[i]);
      else
        fillInput(spec, i, argWords[i].data());
    }
    std::fill(resultStorage.begin(), resultStorage.end(), 0);

    RematAllocStats before;
    rematAllocTrackerReset();
    rematAllocTrackerGetStats(&before);
    auto start = std::chrono::steady_clock::now();
    (*packed)(packedArgs.data());
    auto stop = std::chrono::steady_clock::now();
    RunStats stats;
    rematAllocTrackerGetStats(&stats.alloc);
    stats.seconds = std::chrono::duration<double>(stop - start).count();
    stats.returnedBytes = stats.alloc.currentBytes - before.currentBytes;

    // Checksums, then free the returned buffers (owned by the caller). Two
    // results may share a buffer, and a result may be an input or a global:
    // free only pointers the tracker handed out, once each.
    checksums.assign(resultSpecs.size(), Checksum());
    SmallVector<void *> toFree;
    const char *storage = reinterpret_cast<const char *>(resultStorage.data());
    for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
      const char *field = storage + resultOffsets[i];
      if (!spec.isMemRef) {
        addElement(checksums[i], spec.kind, field, spec.elemBytes(),
                   printResults);
        continue;
      }
      const int64_t *w = reinterpret_cast<const int64_t *>(field);
      DescriptorView d{reinterpret_cast<void *>(w[0]),
                       reinterpret_cast<void *>(w[1]), w[2], w + 3,
                       w + 3 + spec.rank()};
      checksumMemRef(spec, d, checksums[i]);
      if (rematAllocTrackerSizeOf(d.allocated) >= 0 &&
          !llvm::is_contained(toFree, d.allocated))
        toFree.push_back(d.allocated);
    }
    for (void *p : toFree)
      _mlir_memref_to_llvm_free(p);
    RematAllocStats after;
    rematAllocTrackerGetStats(&after);
    stats.leakedBytes = after.currentBytes - before.currentBytes;
    runs.push_back(stats);
  }
  for (void *buffer : inputBuffers)
    std::free(buffer);

  // Report.
  SmallVector<double> times;
  for (const RunStats &r : runs)
    times.push_back(r.seconds);
  llvm::sort(times);
  double minMs = times.front() * 1e3;
  double medianMs = times[times.size() / 2] * 1e3;
  const RunStats *worst = &runs.front();
  for (const RunStats &r : runs)
    if (r.alloc.peakBytes > worst->alloc.peakBytes)
      worst = &r;
  bool samePeak = llvm::all_of(runs, [&](const RunStats &r) {
    return r.alloc.peakBytes == runs.front().alloc.peakBytes;
  });

  if (emitJson) {
    llvm::json::OStream j(llvm::outs(), /*IndentSize=*/2);
    j.object([&] {
      j.attribute("file", inputFilename.getValue());
      j.attribute("entry", name);
      j.attributeArray("results", [&] {
        for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
          j.object([&] {
            j.attribute("index", static_cast<int64_t>(i));
            j.attribute("type", spec.typeString);
            j.attribute("sum", checksums[i].sum);
            j.attribute("abs_sum", checksums[i].absSum);
            j.attribute("fnv1a64", hex64(checksums[i].fnv));
            if (printResults)
              j.attributeArray("values", [&] {
                for (double v : checksums[i].values)
                  j.value(v);
              });
          });
        }
      });
      j.attribute("peak_bytes", static_cast<int64_t>(worst->alloc.peakBytes));
      j.attribute("peak_bytes_same_every_run", samePeak);
      j.attribute("num_allocs", static_cast<int64_t>(worst->alloc.numAllocs));
      j.attribute("total_allocated_bytes",
                  static_cast<int64_t>(worst->alloc.totalBytes));
      j.attribute("returned_bytes", static_cast<int64_t>(worst->returnedBytes));
      j.attribute("leaked_bytes", static_cast<int64_t>(worst->leakedBytes));
      j.attribute("unknown_frees",
                  static_cast<int64_t>(worst->alloc.unknownFrees));
      j.attribute("input_bytes", static_cast<int64_t>(inputBytes));
      j.attribute("repeat", static_cast<int64_t>(repeatCount));
      j.attribute("time_ms_min", minMs);
      j.attribute("time_ms_median", medianMs);
      j.attribute("compile_ms", compileSeconds * 1e3);
    });
    llvm::outs() << "\n";
    return 0;
  }

  llvm::raw_ostream &os = llvm::outs();
  os << "entry: @" << name << "\n";
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    os << "result #" << i << ": " << spec.typeString
       << llvm::format(" sum=%.9g abs_sum=%.9g", checksums[i].sum,
                       checksums[i].absSum)
       << " fnv1a64=" << hex64(checksums[i].fnv) << "\n";
    if (printResults) {
      os << "  values: [";
      llvm::interleaveComma(checksums[i].values, os, [&](double v) {
        os << llvm::format("%.9g", v);
      });
      os << "]\n";
    }
  }
  os << "peak_bytes: " << worst->alloc.peakBytes << "\n";
  if (!samePeak)
    os << "note: the peak differed between runs; the maximum is shown\n";
  os << "num_allocs: " << worst->alloc.numAllocs << "\n";
  os << "total_allocated_bytes: " << worst->alloc.totalBytes << "\n";
  os << "returned_bytes: " << worst->returnedBytes << "\n";
  os << "leaked_bytes: " << worst->leakedBytes << "\n";
  if (worst->alloc.unknownFrees)
    os << "unknown_frees: " << worst->alloc.unknownFrees << "\n";
  os << "input_bytes: " << inputBytes << " (allocated by remat-run, not "
     << "counted)\n";
  os << llvm::format("time_ms: min=%.3f median=%.3f (repeat=%u)\n", minMs,
                     medianMs, repeatCount.getValue());
  os << llvm::format("compile_ms: %.1f\n", compileSeconds * 1e3);
  return 0;
}
