import os

import torch

# None of these initialise CUDA, so the setting below still takes effect.
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
before = torch.cuda.memory_allocated()
cpu = torch.zeros(2).to("cpu")
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 2).to(device)
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"  # want "CL010 PYTORCH_CUDA_ALLOC_CONF is set after CUDA was initialised at line 13"


def never_called():
    # Silent: nothing runs this, so cachelint cannot order it.
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
