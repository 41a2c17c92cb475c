import torch


class Offloader:
    def prepare(self, blocks):
        for b in blocks:
            b.to("cuda")
        torch.cuda.empty_cache()
