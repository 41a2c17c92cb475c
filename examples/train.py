"""ResNet-50 training, the way the article's team found it: empty_cache() everywhere."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def build_model():
    return nn.Sequential(nn.Conv2d(3, 64, 7), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 1000))


def train(train_loader, epochs=10):
    model = build_model().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for step, (images, labels) in enumerate(train_loader):
            outputs = model(images.cuda())
            loss = F.cross_entropy(outputs, labels.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            torch.cuda.empty_cache()  # the article's anti-pattern: every batch

            if step % 100 == 0:
                torch.cuda.empty_cache()  # every 100 batches: still a sync and a refill

        torch.cuda.empty_cache()  # once per epoch: cheap, reported only when CL003 is selected
    return model


if __name__ == "__main__":
    loader = [(torch.randn(128, 3, 224, 224), torch.randint(0, 1000, (128,))) for _ in range(4)]
    train(loader, epochs=1)
