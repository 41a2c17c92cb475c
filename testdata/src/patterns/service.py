"""Class 4: service context reaches down from the request handlers to what only they call."""
import torch
from fastapi import FastAPI

app = FastAPI()


def generate_reply(model, prompt):
    out = model.generate(prompt)
    torch.cuda.empty_cache()
    return out


def complete_all(model, prompts):
    # A loop over the prompts of one request: per request, not a step loop.
    replies = []
    for prompt in prompts:
        model(prompt)
        replies.append(generate_reply(model, prompt))
    return replies


@app.post("/v1/completions")
def completions(body: dict):
    return complete_all(body["model"], body["prompts"])


def score_prompts(model, prompts):
    # The same helper called from plain code, in a loop with a forward: reported.
    for prompt in prompts:
        model(prompt)
        generate_reply(model, prompt)  # want "CL003 generate_reply.. runs once per iteration of the outer loop"
