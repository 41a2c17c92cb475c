import torch

print "starting"


def train(loader, model, opt):
    for batch in loader:
        try:
            model(batch).backward()
        except RuntimeError, e:
            print >>sys.stderr, "failed: %s" % e
        opt.step()
        torch.cuda.empty_cache()
