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
