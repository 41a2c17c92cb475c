"""Model switches judged by what a name was bound to and what a statement does, not by how
the name is spelt (issue 13, classes 1 and 2); look-alikes beside them."""
import torch
from transformers import AutoModel


def unload_from_vram(model):
    model.to("cpu")


def decode_each(latent_batches, vae, org_device):
    images = []
    for latents in latent_batches:
        vae.to(org_device)  # a module's .to() works in place: the VAE comes back onto its device
        torch.cuda.empty_cache()
        images.append(vae.decode(latents))
    return images


def encode_each(image_batches, ae, accelerator):
    out = []
    for images in image_batches:
        ae.to(accelerator.device)
        out.append(ae.encode(images))
        ae.to("cpu")
        torch.cuda.empty_cache()
    return out


def swap_each(prompts, te, unet):
    for prompt in prompts:
        emb = te(prompt)
        unload_from_vram(te)
        torch.cuda.empty_cache()
        unet.to("cuda")
        unet(emb)


class Pipeline:
    def __init__(self, reuse):
        self.encoder = AutoModel.from_pretrained("x")
        self.reuse = reuse

    def run_all(self, xs):
        for x in xs:
            h = self.encoder(x)
            if not self.reuse: del self.encoder
            torch.cuda.empty_cache()
            yield h


def prior_then_decoder(texts, prior, decoder):
    for text in texts:
        emb = prior(text)
        prior.cpu()
        torch.cuda.empty_cache()
        decoder(emb)


def gan_training(loader, netG, netD, opt):
    for real in loader:
        g = netG(real)  # g and d hold outputs, not the networks: deleting them switches nothing
        d = netD(g)
        loss = d.mean()
        loss.backward()
        opt.step()
        del g
        del d
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"


def per_model_windows(models, windows):
    for model in models:
        for w in windows:
            out = model(w)
            out.sum().backward()
            torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"


def moved_batches(loader, model, opt, device):
    for batch in loader:
        batch = batch.to(device)  # a tensor's copy, assigned: no model moves
        model(batch).sum().backward()
        opt.step()
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"
