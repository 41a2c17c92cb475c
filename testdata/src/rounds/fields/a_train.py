"""free_fn is a field of a project class only once fields/c_spec.py is parsed, after this
file and the one that builds the record (TestGraphAcrossRounds parses a file a round)."""
from fields.b_make import make_spec


def train(loader, model, opt):
    spec = make_spec()
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        spec.free_fn()
