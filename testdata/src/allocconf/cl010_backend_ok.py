import os

# Silent: the backend is chosen before torch is imported, and native after it changes nothing.
os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")

import torch  # noqa: E402

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:native"


def main():
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    torch.cuda.set_device(0)


if __name__ == "__main__":
    main()
