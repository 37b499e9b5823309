//===- FinishShardToMPI.cpp - ready mpi ops for the CPU lowering ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-finish-shard-to-mpi`: what upstream convert-shard-to-mpi
// leaves for the CPU lowering of a data-parallel step (unused grids, the MPI
// ABI, memory effects of the mpi ops). See docs/Distributed.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace remat {
#define GEN_PASS_DEF_REMATFINISHSHARDTOMPI
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

/// The key of the DLTI entry the mpi to LLVM conversion reads.
constexpr llvm::StringLiteral kMPIImplementationKey = "MPI:Implementation";
/// The module attribute the entry is added under.
constexpr llvm::StringLiteral kDLTIMapAttrName = "dlti.map";

/// An mpi op on buffers: reads and writes every memref operand, and writes
/// the default resource (communication is visible to other ranks).
template <typename OpTy>
struct MPIBufferEffects
    : public MemoryEffectOpInterface::ExternalModel<MPIBufferEffects<OpTy>,
                                                    OpTy> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      effects.emplace_back(MemoryEffects::Read::get(), &operand);
      effects.emplace_back(MemoryEffects::Write::get(), &operand);
    }
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

template <typename... OpTys> void attachBufferEffects(MLIRContext *ctx) {
  (OpTys::template attachInterface<MPIBufferEffects<OpTys>>(*ctx), ...);
}

struct RematFinishShardToMPIPass
    : public remat::impl::RematFinishShardToMPIBase<RematFinishShardToMPIPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    remat::registerMPIMemoryEffects(registry);
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    if (mpiImplementation == "OpenMPI" || mpiImplementation == "MPICH")
      return success();
    return emitError(UnknownLoc::get(ctx))
           << "unknown MPI implementation '" << mpiImplementation
           << "': expected OpenMPI or MPICH";
  }

  void runOnOperation() override {
    if (failed(remat::finishShardToMPI(getOperation(), mpiImplementation)))
      signalPassFailure();
  }
};

} // namespace

void remat::registerMPIMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    attachBufferEffects<mpi::AllReduceOp, mpi::SendOp, mpi::ISendOp,
                        mpi::RecvOp, mpi::IRecvOp, mpi::Barrier, mpi::Wait,
                        mpi::InitOp, mpi::FinalizeOp>(ctx);
  });
}

/// Adds the DLTI entry naming `implementation` to `module` unless it already
/// names an MPI implementation.
static LogicalResult selectMPIImplementation(ModuleOp module,
                                             StringRef implementation) {
  if (implementation != "OpenMPI" && implementation != "MPICH")
    return module.emitError()
           << "unknown MPI implementation '" << implementation
           << "': expected OpenMPI or MPICH";
  StringRef key = kMPIImplementationKey;
  if (succeeded(dlti::query(module, ArrayRef<StringRef>(key),
                            /*emitError=*/false)))
    return success();
  if (module->hasAttr(kDLTIMapAttrName))
    return module.emitError() << "the module's '" << kDLTIMapAttrName
                              << "' names no \"" << kMPIImplementationKey
                              << "\": add the entry (OpenMPI or MPICH) to it";
  MLIRContext *ctx = module.getContext();
  auto entry = DataLayoutEntryAttr::get(StringAttr::get(ctx, key),
                                        StringAttr::get(ctx, implementation));
  module->setAttr(kDLTIMapAttrName,
                  MapAttr::get(ctx, ArrayRef<DataLayoutEntryInterface>{entry}));
  return success();
}

/// Replaces every `mpi.comm_split` of `module` by its parent communicator.
/// Upstream's OpenMPI lowering of `mpi.comm_split` reads the new
/// communicator back as a 32-bit integer (an MPICH handle) and truncates
/// OpenMPI's pointer. convert-shard-to-mpi splits the world by a color made
/// of the grid axes a collective does not run over, keyed by the process's
/// index in the grid: when the color is a constant, every rank lands in one
/// group ordered as the world, i.e. the split is the world itself. Fails
/// with a located error on a rank-dependent color.
static LogicalResult foldWholeWorldSplits(ModuleOp module) {
  WalkResult result =
      module.walk([&](mpi::CommSplitOp split) {
        if (!matchPattern(split.getColor(), m_Constant())) {
          split.emitError()
              << "mpi.comm_split by a rank-dependent color (a collective over "
                 "part of the grid) cannot be lowered for OpenMPI: upstream's "
                 "lowering truncates the new communicator; use a 1-D grid or "
                 "mpi-implementation=MPICH";
          return WalkResult::interrupt();
        }
        if (split.getRetval() && !split.getRetval().use_empty()) {
          split.emitError() << "mpi.comm_split's return value is used; cannot "
                               "replace the split by its parent communicator";
          return WalkResult::interrupt();
        }
        split.getNewcomm().replaceAllUsesWith(split.getComm());
        split.erase();
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

/// The MPI implementation `module` targets: its DLTI entry, else MPICH (the
/// default of the mpi to LLVM conversion).
static StringRef getMPIImplementation(ModuleOp module) {
  StringRef key = kMPIImplementationKey;
  FailureOr<Attribute> entry =
      dlti::query(module, ArrayRef<StringRef>(key), /*emitError=*/false);
  auto name = succeeded(entry) ? dyn_cast<StringAttr>(*entry) : StringAttr();
  return name ? name.getValue() : StringRef("MPICH");
}

LogicalResult remat::finishShardToMPI(ModuleOp module,
                                      StringRef implementation) {
  SymbolTableCollection symbolTables;
  SymbolUserMap users(symbolTables, module);
  for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
    if (users.useEmpty(grid))
      grid.erase();

  bool hasMPI = false;
  module.walk([&](Operation *op) {
    hasMPI = isa_and_present<mpi::MPIDialect>(op->getDialect());
    return hasMPI ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!hasMPI)
    return success();
  if (failed(selectMPIImplementation(module, implementation)))
    return failure();
  if (getMPIImplementation(module) == "OpenMPI")
    return foldWholeWorldSplits(module);
  return success();
}
