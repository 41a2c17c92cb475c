import os

import gpu

# Reported: the program this file belongs to (it and gpu.py) sets a fraction of 1, no limit.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "garbage_collection_threshold:0.6"  # want "CL012 .*garbage_collection_threshold:0.6 has no effect"
gpu.setup()
