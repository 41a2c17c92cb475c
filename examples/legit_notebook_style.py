"""Use 3: interactive development. Trying one model after another in a REPL session."""
import torch
import torch.nn as nn


def test(model):
    with torch.no_grad():
        return model(torch.randn(8, 512, device="cuda")).sum().item()


model1 = nn.Linear(512, 512).cuda()
test(model1)
del model1
torch.cuda.empty_cache()  # make sure the next experiment starts clean

model2 = nn.Sequential(nn.Linear(512, 2048), nn.Linear(2048, 512)).cuda()
test(model2)
