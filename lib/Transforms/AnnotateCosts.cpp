// PLACEHOLDER: replaced by the implementation.
#include "remat/Transforms/Passes.h"
namespace remat {
#define GEN_PASS_DEF_REMATANNOTATECOSTS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat
namespace {
struct P : remat::impl::RematAnnotateCostsBase<P> { void runOnOperation() override {} };
} // namespace
