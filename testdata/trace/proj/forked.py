"""Runs the inference loop, then forks a child that exits normally (its atexit handlers run,
as in an mp.Process): the child must not write the parent's trace again."""

import os
import sys

from infer import main

main(int(sys.argv[1]))
pid = os.fork()
if pid == 0:
    sys.exit(0)
os.waitpid(pid, 0)
