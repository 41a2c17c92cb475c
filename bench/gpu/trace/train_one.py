"""The loop `cachelint trace` runs: one workload, a helper that empties the cache after
every step. Usage: python3 train_one.py NAME STEPS"""

import sys

from memutil import free_gpu
from workloads import WORKLOADS


def main(name, steps):
    step = WORKLOADS[name]()
    for i in range(steps):
        step(i)
        free_gpu()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
