import os

# The article's §2.2 advice: valid, and set before torch is imported.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:64"

# The article's §4.2 combination: every option is valid, but this program sets no memory
# fraction, so the garbage collection threshold is never consulted.
os.environ.update({
    "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128, roundup_power2_divisions:4, garbage_collection_threshold:0.8"  # want "CL012 PYTORCH_CUDA_ALLOC_CONF: garbage_collection_threshold:0.8 has no effect"
})

import torch  # noqa: E402

model = torch.nn.Linear(4, 4).cuda()
