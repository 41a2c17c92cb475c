"""The base class owns the loops; subclasses fill in the hooks."""


class BaseTrain:
    def hook_train_loop(self, batch):
        raise NotImplementedError

    def hook_after_training(self):
        pass

    def run(self, loader, optimizer, steps):
        for step in range(steps):
            batch = next(loader)
            loss = self.hook_train_loop(batch)
            optimizer.step()
        self.hook_after_training()


class CleaningTrain(BaseTrain):
    """A subclass of the base whose own hook clears; its subclasses only call super()."""

    def hook_train_loop(self, batch):
        torch_clear()  # want "CL001 torch_clear.. runs on every iteration of the step loop at line 12 .*self.hook_train_loop.batch."
        return None


def torch_clear():
    import torch

    torch.cuda.empty_cache()
