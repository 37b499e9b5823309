//===- InputsTest.cpp - the runners' deterministic inputs -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Inputs.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

using namespace remat;

namespace {

TEST(Inputs, BooleansAlternateOneByteEach) {
  // Argument 3, a 2x3 i1 mask: element i is (i + 3) mod 2, one byte each.
  ValueSpec mask;
  mask.kind = ElemKind::I1;
  mask.isMemRef = true;
  mask.shape = {2, 3};
  EXPECT_EQ(mask.elemBytes(), 1u);
  std::vector<uint8_t> bytes(6, 0xff);
  fillInput(mask, /*arg=*/3, bytes.data());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(bytes[i], (i + 3) % 2) << "element " << i;
}

TEST(Inputs, IntegersLieBelowTheirBound) {
  // Without remat.high integers are (i + arg) mod 4; with it, below it.
  ValueSpec ids;
  ids.kind = ElemKind::I64;
  ids.isMemRef = true;
  ids.shape = {64};
  EXPECT_EQ(getInputBound(ids), 4);
  std::vector<int64_t> values(64);
  fillInput(ids, /*arg=*/1, values.data());
  for (int64_t v : values)
    EXPECT_TRUE(v >= 0 && v < 4) << v;
  ids.high = 10;
  EXPECT_EQ(getInputBound(ids), 10);
  fillInput(ids, /*arg=*/1, values.data());
  for (int64_t v : values)
    EXPECT_TRUE(v >= 0 && v < 10) << v;
}

} // namespace
