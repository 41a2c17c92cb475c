"""A generate function picked by model type (a name bound in each branch, or returned by a
factory) runs every candidate's clear (issue 13: the call graph follows bindings); a chat
loop that reads each turn through its I/O object's method waits for a person."""
import torch


def generate_a(model, prompt):
    out = model.generate(prompt)
    torch.cuda.empty_cache()
    return out


def generate_b(model, prompt):
    out = model.generate(prompt, beams=4)
    torch.cuda.empty_cache()
    return out


def pick_generate(kind):
    if kind == "a":
        return generate_a
    return generate_b


class ConsoleIO:
    def prompt_for_input(self, role):
        return input(f"{role}: ")


def chat(model, chatio, kind):
    generate = pick_generate(kind)
    while True:
        prompt = chatio.prompt_for_input("user")
        if not prompt:
            break
        print(generate(model, prompt))


def score_all(model, prompts, kind):
    if kind == "a":
        generate = generate_a
    else:
        generate = generate_b
    for prompt in prompts:
        model(prompt)
        generate(model, prompt)  # want "CL003 generate_a.. runs once per iteration of the outer loop"
