"""A chat REPL: each turn waits for a person, so a clear on a turn costs nothing anyone waits
for (interactive cleanup); the same clear in a loop that reads no input is a warning."""
import torch


def torch_gc():
    torch.cuda.empty_cache()


def chat(model):
    history = []
    while True:
        query = input("User: ")
        if query.strip() == "exit":
            break
        if query.strip() == "clear":
            history = []
            torch_gc()
            continue
        history.append(model.chat(query, history))


def serve_queue(model, queue):
    history = []
    while True:
        query = queue.get()
        if query == "clear":
            history = []
            torch_gc()  # want "CL004 torch_gc.. runs"
            continue
        history.append(model.chat(query, history))
