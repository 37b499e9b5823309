//===- CbcProcess.cpp - CBC in a child process ----------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The fork, the pipe and the answer's encoding of CbcProcess.h; its file
// comment says why CBC runs in a child and what the child may touch.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate/CbcProcess.h"

#include "remat/Solver/Core/SolverSupport.h"

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace remat;
using namespace remat::checkmate;

/// Writes all of `size` bytes at `data` to `fd`; false on an error.
static bool writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n <= 0)
      return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// Everything `fd` delivers until its end (`ended`), or until `seconds`
/// pass.
static std::string readAll(int fd, double seconds, bool &ended) {
  std::string text;
  Stopwatch watch;
  char buffer[1 << 16];
  ended = false;
  while (!ended && watch.seconds() < seconds) {
    pollfd pfd = {fd, POLLIN, 0};
    int ms = static_cast<int>(1000 * (seconds - watch.seconds())) + 1;
    if (::poll(&pfd, 1, ms) <= 0)
      continue; // the time is up (the loop ends) or a signal interrupted
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0)
      text.append(buffer, static_cast<size_t>(n));
    else
      ended = true;
  }
  return text;
}

bool checkmate::sendAnswer(int fd, const CbcRaw &answer) {
  uint64_t count = answer.best.size();
  char flags[4] = {answer.provenOptimal, answer.provenInfeasible,
                   answer.secondsLimitReached, answer.nodeLimitReached};
  return writeAll(fd, &count, sizeof(count)) &&
         writeAll(fd, answer.best.data(), count * sizeof(double)) &&
         writeAll(fd, &answer.objective, sizeof(double)) &&
         writeAll(fd, &answer.bound, sizeof(double)) &&
         writeAll(fd, &answer.nodes, sizeof(int64_t)) &&
         writeAll(fd, flags, sizeof(flags));
}

bool checkmate::decodeAnswer(const std::string &text, CbcRaw &raw) {
  uint64_t count = 0;
  const size_t fixed = sizeof(count) + 2 * sizeof(double) + sizeof(int64_t) + 4;
  if (text.size() < fixed)
    return false;
  std::memcpy(&count, text.data(), sizeof(count));
  if (count > text.size() / sizeof(double) ||
      text.size() != fixed + count * sizeof(double))
    return false;
  const char *p = text.data() + sizeof(count);
  raw.best.resize(count);
  std::memcpy(raw.best.data(), p, count * sizeof(double));
  p += count * sizeof(double);
  std::memcpy(&raw.objective, p, sizeof(double));
  std::memcpy(&raw.bound, p + sizeof(double), sizeof(double));
  p += 2 * sizeof(double);
  std::memcpy(&raw.nodes, p, sizeof(int64_t));
  p += sizeof(int64_t);
  raw.provenOptimal = p[0];
  raw.provenInfeasible = p[1];
  raw.secondsLimitReached = p[2];
  raw.nodeLimitReached = p[3];
  return true;
}

bool checkmate::runIsolated(const std::function<CbcRaw()> &solve,
                            double seconds, CbcRaw &raw, std::string &failure) {
  int fds[2];
  pid_t pid = -1;
  if (::pipe(fds) == 0) {
    std::fflush(nullptr); // The child starts with empty stdio buffers.
    pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
    }
  }
  if (pid < 0) {
    raw = solve();
    return true;
  }
  if (pid == 0) {
    // The child: only what CbcProcess.h allows, and `_exit` at the end.
    ::close(fds[0]);
    ::_exit(sendAnswer(fds[1], solve()) ? 0 : 1);
  }
  ::close(fds[1]);
  bool ended = false;
  std::string text = readAll(fds[0], seconds, ended);
  ::close(fds[0]);
  if (!ended)
    ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!ended) {
    failure = "CBC did not answer within the time limit and was stopped";
    return false;
  }
  if (WIFSIGNALED(status)) {
    failure = "CBC aborted (signal " + std::to_string(WTERMSIG(status)) +
              " inside CBC or CLP)";
    return false;
  }
  if (!decodeAnswer(text, raw)) {
    failure = "CBC's process ended without a whole answer";
    return false;
  }
  return true;
}
