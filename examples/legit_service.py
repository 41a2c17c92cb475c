"""Use 5: a safety net in a deployed service. On a CUDA OOM, clear the cache and retry once."""
import torch
from flask import Flask, request

app = Flask(__name__)
model = None


def run_inference(data):
    with torch.no_grad():
        return model(data)


@app.route("/inference", methods=["POST"])
def infer():
    try:
        return run_inference(request.data)
    except RuntimeError as e:
        if "CUDA out of memory" in str(e):
            torch.cuda.empty_cache()
            return run_inference(request.data)
        raise
