from pkg.utils import release


def train(model, loader, opt):
    for batch in loader:
        loss = model(batch).sum()
        loss.backward()
        opt.step()
        release()
