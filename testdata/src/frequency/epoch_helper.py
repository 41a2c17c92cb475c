import torch


def train_one_epoch(loader, model, optimizer):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        optimizer.step()
    torch.cuda.empty_cache()


def train_step(batch, model, optimizer):
    loss = model(batch)
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()


def main(loader, model, optimizer, epochs):
    for epoch in range(epochs):
        train_one_epoch(loader, model, optimizer)  # want "CL003 train_one_epoch\\(\\) runs once per epoch in the epoch loop at line 20.*via train_one_epoch\\(\\) -> torch.cuda.empty_cache\\(\\) at .*epoch_helper.py:9"
        for batch in loader:
            train_step(batch, model, optimizer)  # want "CL001 train_step\\(\\) runs on every iteration of the step loop at line 22"


def valid_step(batch, model, optimizer):
    loss = model(batch)
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()  # want "CL001 .*runs on every step: `valid_step`, which runs a training step"


def test_training_once(config, load_base, get_peft_model):
    # An uncalled test function runs once, even though it runs a model.
    model = load_base()
    torch.cuda.empty_cache()
    model = get_peft_model(model, config)
    model(config).backward()


def load_model_hook(models, input_dir, unwrap_model):
    # A loop that loads models: not a step loop (`unwrap_model(...)` is no forward), and silent.
    while len(models) > 0:
        loaded = unwrap_model(models.pop())
        loaded.load_state_dict(torch.load(input_dir))
        torch.cuda.empty_cache()  # model_switch: the loop loads models
