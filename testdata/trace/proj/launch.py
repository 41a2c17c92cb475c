"""A launcher (as torchrun is): it runs the inference loop in a child process."""

import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(subprocess.call([sys.executable, os.path.join(here, "infer.py")] + sys.argv[1:]))
