import os

# Silent: train.py imports this module and sets a memory fraction, so the threshold acts.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "garbage_collection_threshold:0.6"
