//===- BudgetTest.cpp - the one budget parser ------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Budget.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

TEST(ParseBudget, BytesSuffixesAndPercentages) {
  std::string error;
  EXPECT_EQ(parseBudget("", 1000, error), 1000);
  EXPECT_EQ(parseBudget("4096", 1000, error), 4096);
  EXPECT_EQ(parseBudget("4096B", 1000, error), 4096);
  EXPECT_EQ(parseBudget("64KiB", 1000, error), 64 * 1024);
  // 1.5 MiB = 1572864 bytes.
  EXPECT_EQ(parseBudget("1.5MiB", 1000, error), 1572864);
  EXPECT_EQ(parseBudget("2GiB", 1000, error), int64_t(2) << 30);
  EXPECT_EQ(parseBudget("3TiB", 1000, error), int64_t(3) << 40);
  // 70 % of 1000 = 700; 33.3 % of 1000 = 333 (rounded down), blanks allowed.
  EXPECT_EQ(parseBudget("70%", 1000, error), 700);
  EXPECT_EQ(parseBudget(" 33.3 % ", 1000, error), 333);
  EXPECT_EQ(parseBudget("0", 1000, error), 0);
}

TEST(ParseBudget, RejectsMalformed) {
  for (const char *text : {"lots", "-5", "1.5", "1e3", "KiB", "12PiB", "%",
                           "nan%", "inf", "1e999%", "70%%", "9.3e18"}) {
    std::string error;
    EXPECT_FALSE(parseBudget(text, 1000, error).has_value()) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

} // namespace
