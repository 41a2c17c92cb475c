"""Class 4: a route calls a method on a module global that the worker's constructor binds to
its own instance (`global worker; worker = self`): the method of that class, and of the
subclass that overrides it, runs per request."""
import torch
from fastapi import FastAPI, Request

app = FastAPI()
worker = None


class BaseWorker:
    def __init__(self):
        global worker
        worker = self

    def embed(self, texts):
        raise NotImplementedError


class Worker(BaseWorker):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def embed(self, texts):
        out = [self.model(t) for t in texts]
        torch.cuda.empty_cache()
        return out


@app.post("/embed")
async def api_embed(request: Request):
    texts = await request.json()
    return worker.embed(texts)
