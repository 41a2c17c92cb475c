"""Use 4: memory-leak diagnosis. Compare memory_allocated() with a baseline."""
import torch

THRESHOLD = 100 * 1024 * 1024  # 100 MB


def check_memory_leak(run_suspect_code):
    baseline = torch.cuda.memory_allocated()
    run_suspect_code()
    if torch.cuda.memory_allocated() - baseline > THRESHOLD:
        torch.cuda.empty_cache()
        return True
    return False
