"""Use 1: switching between models. Alternating GAN training, clearing fragments before the
other model trains, only every 5 epochs."""
import torch


def train_gan(generator, discriminator, loader, epochs, train_discriminator, train_generator):
    for epoch in range(epochs):
        train_discriminator(discriminator, generator, loader)
        if epoch % 5 == 0:
            torch.cuda.empty_cache()
        train_generator(generator, discriminator, loader)
