import torch


class Worker:
    @classmethod
    def tidy(cls):
        torch.cuda.empty_cache()
