//===- CbcProcessTest.cpp - CBC's child process ---------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The child process the Checkmate MILP runs CBC in (CbcProcess.h), with
// stand-ins for CBC: answers come back whole, and a child that aborts, hangs
// or sends half an answer is a failure that says so. Needs no COIN-OR.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate/CbcProcess.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <unistd.h>

using namespace remat::checkmate;

namespace {

CbcRaw sampleAnswer() {
  CbcRaw raw;
  raw.best = {1, 0, 0.5, -2};
  raw.objective = 7.25;
  raw.bound = 6;
  raw.provenOptimal = true;
  raw.secondsLimitReached = true;
  raw.nodeLimitReached = true;
  raw.nodes = 1234567890123;
  return raw;
}

void expectSame(const CbcRaw &a, const CbcRaw &b) {
  EXPECT_EQ(a.best, b.best);
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.bound, b.bound);
  EXPECT_EQ(a.provenOptimal, b.provenOptimal);
  EXPECT_EQ(a.provenInfeasible, b.provenInfeasible);
  EXPECT_EQ(a.secondsLimitReached, b.secondsLimitReached);
  EXPECT_EQ(a.nodeLimitReached, b.nodeLimitReached);
  EXPECT_EQ(a.nodes, b.nodes);
}

} // namespace

TEST(CbcProcessTest, AnswerSurvivesThePipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_TRUE(sendAnswer(fds[1], sampleAnswer()));
  ::close(fds[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof(buffer))) > 0;)
    text.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  CbcRaw back;
  ASSERT_TRUE(decodeAnswer(text, back));
  expectSame(back, sampleAnswer());
  // Half an answer, or one with bytes to spare, is refused.
  EXPECT_FALSE(decodeAnswer(text.substr(0, text.size() - 1), back));
  EXPECT_FALSE(decodeAnswer(text + "x", back));
  EXPECT_FALSE(decodeAnswer("", back));
}

TEST(CbcProcessTest, ChildAnswers) {
  CbcRaw raw;
  std::string failure;
  ASSERT_TRUE(runIsolated(sampleAnswer, 10, raw, failure)) << failure;
  expectSame(raw, sampleAnswer());
  EXPECT_EQ(failure, "");
}

TEST(CbcProcessTest, AbortEndsOnlyTheChild) {
  CbcRaw raw;
  std::string failure;
  EXPECT_FALSE(runIsolated([]() -> CbcRaw { std::abort(); }, 10, raw, failure));
  EXPECT_EQ(failure, "CBC aborted (signal 6 inside CBC or CLP)");
}

TEST(CbcProcessTest, SilentChildIsStopped) {
  CbcRaw raw;
  std::string failure;
  EXPECT_FALSE(runIsolated(
      []() {
        ::sleep(30);
        return CbcRaw();
      },
      0.2, raw, failure));
  EXPECT_EQ(failure,
            "CBC did not answer within the time limit and was stopped");
}
