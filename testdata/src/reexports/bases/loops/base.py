"""The base class owns the step loop and mentions nothing about memory."""


class LoopBase:
    def on_step(self, batch):
        raise NotImplementedError

    def fit(self, loader, optimizer):
        for batch in loader:
            loss = self.on_step(batch)
            optimizer.step()
        return loss
