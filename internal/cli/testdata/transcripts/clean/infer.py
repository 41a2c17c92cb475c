"""Legitimate uses only: nothing to report."""
import torch


class LRU:
    """A user cache whose empty_cache() has nothing to do with torch."""

    def __init__(self):
        self.items = {}

    def empty_cache(self):
        self.items = {}


if __name__ == "__main__":
    lru = LRU()
    batches = [torch.zeros(8, device="cuda") for _ in range(4)]
    for path in ["a.pt", "b.pt"]:
        model = torch.load(path).cuda()
        for batch in batches:
            model(batch)
            lru.empty_cache()
        del model
        torch.cuda.empty_cache()

    torch.cuda.reset_peak_memory_stats()
    torch.cuda.empty_cache()
    print(torch.cuda.max_memory_allocated())
