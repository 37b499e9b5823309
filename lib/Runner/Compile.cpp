//===- Compile.cpp - from a runner's module to a callable entry -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Compile.h"

#include "remat/Runner/RunnerError.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>

using namespace mlir;
using namespace remat;

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
