#!/usr/bin/env python3
"""Runs a command beside N processes that keep a CPU busy.

  beside_busy.py N command [args...]

The busy processes start before the command and are killed after it; the
exit status is the command's. test/Integration/determinism.test runs the
same solve idle and beside one and two of them: a search bounded by the
clock gives another plan when it gets less CPU, one bounded by counted work
gives the same plan.
"""

import subprocess
import sys


def main():
    count = int(sys.argv[1])
    command = sys.argv[2:]
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(count)]
    try:
        status = subprocess.call(command)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    sys.exit(status)


if __name__ == "__main__":
    main()
