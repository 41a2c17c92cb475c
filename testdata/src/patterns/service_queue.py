"""Class 4: a worker that takes one request from a queue per turn serves requests; Gradio
handlers registered through a dict of listener arguments; a handler that switches to the
model asked for is a model switch. Look-alikes beside them."""
import queue

import gradio as gr
import torch
from transformers import AutoModelForCausalLM

MODEL = None


def worker(model, in_q, out_q):
    while True:
        item = in_q.get()
        for t in range(item["steps"]):
            item["x"] = model(item["x"], t)
        out_q.put(item["x"])
        torch.cuda.empty_cache()


def prefetching_train(model, opt, data_q, steps):
    for _ in range(steps):
        batch = data_q.get()  # a batch per turn: a step loop, not a request loop
        model(batch).sum().backward()
        opt.step()
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"


def lookups(model, table, keys):
    for k in keys:
        v = table.get(k)  # a lookup, not a queue
        model(v)
        torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"


def predict(prompt):
    out = MODEL.generate(prompt)
    torch.cuda.empty_cache()
    return out


def load_model(name):
    global MODEL
    del MODEL
    torch.cuda.empty_cache()
    MODEL = AutoModelForCausalLM.from_pretrained(name)


with gr.Blocks() as demo:
    box = gr.Textbox()
    choice = gr.Dropdown(["a", "b"])
    args = dict(fn=predict, inputs=[box], outputs=[box])
    box.submit(**args)
    choice.change(load_model, inputs=[choice])


class Server:
    def __init__(self, model):
        self.model = model
        self.pending = queue.Queue()  # named for what it holds, bound to a Queue

    def serve(self):
        while True:
            job = self.pending.get()
            job.reply(self.model(job.x))
            torch.cuda.empty_cache()
