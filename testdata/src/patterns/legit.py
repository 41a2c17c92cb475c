import torch
from fastapi import FastAPI
from flask import Flask, request

app = Flask(__name__)
api = FastAPI()


def gan(generator, discriminator, loader, epochs, train_discriminator, train_generator):
    for epoch in range(epochs):
        train_discriminator(discriminator, generator, loader)
        if epoch % 5 == 0:
            torch.cuda.empty_cache()
        train_generator(generator, discriminator, loader)


def model_sweep(model_names, load, evaluate, loader):
    for name in model_names:
        model = load(name)
        evaluate(model, loader)
        del model
        torch.cuda.empty_cache()


def stages(pipeline_stages, loader):
    for stage in pipeline_stages:
        stage.run(loader)
        stage.model.cpu()
        torch.cuda.empty_cache()


def scans(medical_scans, process):
    for scan in medical_scans:
        try:
            process(scan)
        except RuntimeError:
            torch.cuda.empty_cache()
            process(scan)


def oom_message(loader, model):
    for batch in loader:
        try:
            model(batch).backward()
        except RuntimeError as e:
            if "out of memory" in str(e):
                torch.cuda.empty_cache()
            else:
                raise


def oom_flag(loader, model, optimizer):
    for batch in loader:
        has_oom = False
        try:
            model(batch).backward()
            optimizer.step()
        except torch.cuda.OutOfMemoryError:
            has_oom = True
        if has_oom:
            torch.cuda.empty_cache()


def batch_size_search(model, make_batch):
    batch_size = 512
    while batch_size > 1:
        try:
            model(make_batch(batch_size))
            break
        except torch.cuda.OutOfMemoryError:
            batch_size //= 2
        torch.cuda.empty_cache()


def alloc_retries(loader, model):
    for batch in loader:
        model(batch).backward()
        if torch.cuda.memory_stats()["num_alloc_retries"] > 0:
            torch.cuda.empty_cache()


def leak_check(loader, model, threshold):
    baseline = torch.cuda.memory_allocated()
    for batch in loader:
        model(batch).backward()
        if torch.cuda.memory_allocated() - baseline > threshold:
            torch.cuda.empty_cache()


def check_memory_leak(run):
    baseline = torch.cuda.memory_allocated()
    run()
    torch.cuda.empty_cache()
    return torch.cuda.memory_allocated() - baseline


@app.route("/inference", methods=["POST"])
def infer():
    try:
        return run_inference(request.data)
    except RuntimeError as e:
        if "CUDA out of memory" in str(e):
            torch.cuda.empty_cache()
            return run_inference(request.data)
        raise


@api.post("/generate")
async def generate(prompt: str):
    try:
        return run_inference(prompt)
    finally:
        torch.cuda.empty_cache()


def run_inference(data):
    return data


class ModelHandler(BaseHandler):
    def handle(self, data, context):
        out = self.model(data)
        torch.cuda.empty_cache()
        return out


model1 = torch.nn.Linear(4, 4).cuda()
del model1
torch.cuda.empty_cache()


def generate_offloaded(prompts, t5, clip, ae, model, device, denoise):
    for prompt in prompts:
        cond = t5(prompt), clip(prompt)
        t5, clip, ae = t5.cpu(), clip.cpu(), ae.cpu()
        torch.cuda.empty_cache()  # text encoders off the GPU, the model onto it: a model switch
        model = model.to(device)
        denoise(model, cond)
