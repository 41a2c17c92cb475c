"""A chat REPL: each turn waits for a person, so a clear on a turn costs nothing anyone waits
for (interactive cleanup). The same clear in a worker that takes each query from a queue
serves one request per turn (a service guard, issue 13 class 4)."""
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
            torch_gc()
            continue
        history.append(model.chat(query, history))


def resynthesize(model):
    turns = 0
    while True:
        path = input("File: ")
        turns += 1
        if turns == 1000:
            torch.cuda.empty_cache()  # once in the session, on no one's request: no cleanup between turns
        model(path)
