//===- TestPasses.cpp - register the test-only passes ---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

namespace remat {
namespace test {
void registerTestMemoryAnalysisPass();

/// Registers every test-only pass (`test-remat-…`) with the global registry.
void registerTestPasses() { registerTestMemoryAnalysisPass(); }
} // namespace test
} // namespace remat
