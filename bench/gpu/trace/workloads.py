"""Six workloads for validating `cachelint trace` and the probe (docs/probe.md), none of them
ResNet-50 or the transformer the probe was fitted on. Each make_*() returns step(i), one
step of work: a training step (forward, backward, optimizer step) or, for the diffusion
sampler, one denoising step (no optimizer: trace counts its steps at module forwards).

Plain torch only. Sizes keep every step between about 1 ms (the MLP, where the sync
dominates) and 60 ms on an H100/H200.
"""

import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

DEV = "cuda"


def _train(model, opt, batch, loss_fn, amp=False):
    def step(i):
        x, y = batch(i)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


# 1. CNN: a VGG-11 with batch norm, 224x224, batch 64, fp32.
def make_cnn():
    cfg = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]
    layers, c = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(c, v, 3, padding=1, bias=False), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            c = v
    model = nn.Sequential(*layers, nn.Flatten(), nn.Linear(512 * 7 * 7, 4096), nn.ReLU(inplace=True),
                          nn.Linear(4096, 1000)).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 224, 224, device=DEV)
    y = torch.randint(0, 1000, (64,), device=DEV)
    return _train(model, opt, lambda i: (x, y), F.cross_entropy)


# 2. Decoder-only LM: 12 layers, d=1024, causal attention, seq 1024, batch 8, bf16 autocast,
# fused AdamW.
class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.h, d // self.h).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class Decoder(nn.Module):
    def __init__(self, vocab=32000, d=1024, layers=12, heads=16, seq=1024):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Parameter(torch.zeros(seq, d))
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.emb(idx) + self.pos[: idx.shape[1]]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def make_lm():
    model = Decoder().to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    idx = torch.randint(0, 32000, (8, 1025), device=DEV)
    return _train(model, opt, lambda i: (idx[:, :-1], idx[:, 1:]),
                  lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1)), amp=True)


# 3. Segmentation at high resolution: a U-Net, 1024x1024, batch 2, 21 classes, bf16 autocast.
def _conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetSeg(nn.Module):
    def __init__(self, ch=(32, 64, 128, 256), classes=21):
        super().__init__()
        self.down = nn.ModuleList()
        c = 3
        for w in ch:
            self.down.append(_conv(c, w))
            c = w
        self.up = nn.ModuleList(nn.ConvTranspose2d(ch[i], ch[i - 1], 2, stride=2) for i in range(len(ch) - 1, 0, -1))
        self.dec = nn.ModuleList(_conv(2 * ch[i - 1], ch[i - 1]) for i in range(len(ch) - 1, 0, -1))
        self.out = nn.Conv2d(ch[0], classes, 1)

    def forward(self, x):
        skips = []
        for i, d in enumerate(self.down):
            x = d(x)
            if i < len(self.down) - 1:
                skips.append(x)
                x = F.max_pool2d(x, 2)
        for up, dec in zip(self.up, self.dec):
            x = dec(torch.cat([up(x), skips.pop()], 1))
        return self.out(x)


def make_seg():
    model = UNetSeg().to(DEV).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(2, 3, 1024, 1024, device=DEV).to(memory_format=torch.channels_last)
    y = torch.randint(0, 21, (2, 1024, 1024), device=DEV)
    return _train(model, opt, lambda i: (x, y), F.cross_entropy, amp=True)


# 4. ViT-S/16 at 224x224 whose batch size varies from step to step (32 to 160), in a shuffled
# cycle of ten steps (each size twice): every ten consecutive steps, a window of the trace or a
# phase of the benchmark (both 10 steps by default), hold the same sizes. With a random
# sequence the cost of a 10-step window depended on which sizes fell in it (benchmark pairs
# 7.8 to 35 ms in one call), noise that ~30 pairs did not average out (2026-12-05, run 5:
# trace +17% against the benchmark, all other workloads within 10%).
class ViT(nn.Module):
    def __init__(self, d=384, layers=12, heads=6, classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 16, stride=16)
        self.cls, self.pos = nn.Parameter(torch.zeros(1, 1, d)), nn.Parameter(torch.zeros(1, 197, d))
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        return self.head(self.enc(x)[:, 0])


def make_vit():
    model = ViT().to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rng = random.Random(0)
    sizes = [32, 64, 96, 128, 160] * 2
    rng.shuffle(sizes)
    xs = {b: (torch.randn(b, 3, 224, 224, device=DEV), torch.randint(0, 1000, (b,), device=DEV)) for b in set(sizes)}
    return _train(model, opt, lambda i: xs[sizes[i % len(sizes)]], F.cross_entropy, amp=True)


# 5. A diffusion UNet's denoising step (sampling, no optimizer): 4x64x64 latents, batch 8,
# time embedding, self-attention at the two lowest resolutions, bf16.
class ResBlock(nn.Module):
    def __init__(self, cin, cout, temb):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(32, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.t = nn.Linear(temb, cout)
        self.n2, self.c2 = nn.GroupNorm(32, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, t):
        h = self.c1(F.silu(self.n1(x))) + self.t(t)[:, :, None, None]
        return self.skip(x) + self.c2(F.silu(self.n2(h)))


class Attn(nn.Module):
    def __init__(self, c, heads=8):
        super().__init__()
        self.n, self.a = nn.GroupNorm(32, c), nn.MultiheadAttention(c, heads, batch_first=True)

    def forward(self, x):
        b, c, h, w = x.shape
        s = self.n(x).flatten(2).transpose(1, 2)
        return x + self.a(s, s, s, need_weights=False)[0].transpose(1, 2).view(b, c, h, w)


class DiffusionUNet(nn.Module):
    def __init__(self, ch=(192, 384, 768), temb=768):
        super().__init__()
        self.temb = nn.Sequential(nn.Linear(ch[0], temb), nn.SiLU(), nn.Linear(temb, temb))
        self.inp = nn.Conv2d(4, ch[0], 3, padding=1)
        self.down, self.up, self.attn_d, self.attn_u = nn.ModuleList(), nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        c = ch[0]
        for i, w in enumerate(ch):
            self.down.append(ResBlock(c, w, temb))
            self.attn_d.append(Attn(w) if i > 0 else nn.Identity())
            c = w
        self.mid = ResBlock(c, c, temb)
        for i, w in reversed(list(enumerate(ch))):
            self.up.append(ResBlock(c + w, w, temb))
            self.attn_u.append(Attn(w) if i > 0 else nn.Identity())
            c = w
        self.out = nn.Sequential(nn.GroupNorm(32, c), nn.SiLU(), nn.Conv2d(c, 4, 3, padding=1))
        self.c0 = ch[0]

    def forward(self, x, t):
        half = self.c0 // 2
        f = torch.exp(-math.log(10000) * torch.arange(half, device=x.device) / half)
        e = self.temb(torch.cat([torch.sin(t[:, None] * f), torch.cos(t[:, None] * f)], 1))
        h, skips = self.inp(x), []
        for i, (blk, at) in enumerate(zip(self.down, self.attn_d)):
            h = at(blk(h, e))
            skips.append(h)
            if i < len(self.down) - 1:
                h = F.avg_pool2d(h, 2)
        h = self.mid(h, e)
        for i, (blk, at) in enumerate(zip(self.up, self.attn_u)):
            h = at(blk(torch.cat([h, skips.pop()], 1), e))
            if i < len(self.up) - 1:
                h = F.interpolate(h, scale_factor=2)
        return self.out(h)


def make_diffusion():
    model = DiffusionUNet().to(DEV).eval()
    x = torch.randn(8, 4, 64, 64, device=DEV)
    ts = torch.linspace(999, 0, 50, device=DEV)

    @torch.no_grad()
    def step(i):
        nonlocal x
        t = ts[i % 50].expand(8)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            eps = model(x, t)
        x = x - 0.02 * eps.float()
        if i % 50 == 49:
            x = torch.randn_like(x)

    return step


# 6. A small MLP, batch 512: about a millisecond a step, so the sync dominates the call.
def make_mlp():
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(DEV)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(512, 256, device=DEV)
    y = torch.randint(0, 10, (512,), device=DEV)
    return _train(model, opt, lambda i: (x, y), F.cross_entropy)


WORKLOADS = {"cnn": make_cnn, "lm": make_lm, "seg": make_seg, "vit": make_vit, "diffusion": make_diffusion,
             "mlp": make_mlp}
