//===- FunctionFilter.cpp - the functions a remat pass works on -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/FunctionFilter.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace remat;

/// Emits, at the first function with a body of `func`'s symbol table, an error
/// naming the entries of `names` that are no function with a body there.
/// Every function runs this check, so only the first one reports.
static LogicalResult checkFunctionNames(func::FuncOp func,
                                        ArrayRef<std::string> names,
                                        StringRef passName) {
  Operation *table = SymbolTable::getNearestSymbolTable(func->getParentOp());
  if (!table || table->getNumRegions() == 0)
    return success();
  func::FuncOp first;
  llvm::StringSet<> defined;
  for (auto sibling : table->getRegion(0).getOps<func::FuncOp>()) {
    if (sibling.isExternal())
      continue;
    if (!first)
      first = sibling;
    defined.insert(sibling.getSymName());
  }
  SmallVector<std::string> unknown;
  for (const std::string &name : names)
    if (!defined.contains(name))
      unknown.push_back("'" + name + "'");
  if (unknown.empty() || first != func)
    return success();
  return mlir::emitError(func.getLoc())
         << passName << ": functions= names no function with a body in this "
         << "module: " << llvm::join(unknown, ", ");
}

FailureOr<bool> remat::isSelectedFunction(func::FuncOp func,
                                          ArrayRef<std::string> names,
                                          StringRef passName) {
  if (func.isExternal())
    return false;
  if (names.empty())
    return func.isPublic();
  if (failed(checkFunctionNames(func, names, passName)))
    return failure();
  return llvm::is_contained(names, func.getSymName());
}
