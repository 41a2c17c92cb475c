import torch


class Trainer:
    def train_step(self, samples):
        # A loop over micro-batches with an OOM handler and a size that adds up: no retry
        # loop, so the clear gated on the first update is no OOM retry.
        sample_size = 0
        has_oom = False
        for i, sample in enumerate(samples):
            try:
                loss, sample_size_i = self.task.train_step(sample, self.model)
                loss.backward()
                sample_size += sample_size_i
                if self.get_num_updates() == 0:
                    torch.cuda.empty_cache()
            except RuntimeError as e:
                if "out of memory" in str(e):
                    has_oom = True
                else:
                    raise e
        return sample_size, has_oom

    def search(self, make):
        # The same shape shrinking a size after an OOM is a batch-size search.
        size = 256
        for _ in range(8):
            ok = True
            try:
                self.model(make(size)).sum().backward()
            except RuntimeError as e:
                if "out of memory" not in str(e):
                    raise
                ok = False
            if ok:
                return size
            torch.cuda.empty_cache()
            size = size // 2
