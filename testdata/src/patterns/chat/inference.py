"""A helper that serves both a web route and a command-line chat whose turns are read through
an abstract I/O class implemented in another module (issue 13, class 4)."""
import abc

import torch
from fastapi import FastAPI

app = FastAPI()


class ChatIO(abc.ABC):
    @abc.abstractmethod
    def read_message(self, role):
        """A person's next message."""


def generate(model, prompt):
    out = model(prompt)
    torch.cuda.empty_cache()  # once per request or per chat turn
    return out


def chat_loop(model, chatio: ChatIO):
    while True:
        inp = chatio.read_message("user")
        if not inp:
            break
        print(generate(model, inp))


@app.post("/generate")
def route(req):
    return generate(req.model, req.prompt)
