"""Class 3: loop roles come from where the step work is, not from names."""
import torch


def sample_prompts(pipe, prompts):
    for prompt in prompts:
        image = pipe(prompt, num_inference_steps=30)
        image.save("out.png")
        torch.cuda.empty_cache()  # want "CL003 .*outer loop at line 6.*runs `pipe.....`"


def ppo(policy, optimizer, iter_dataloader, num_total_batches, minibatches):
    for update in range(1, num_total_batches + 1):
        data = next(iter_dataloader)
        for mb in minibatches(data):
            policy(mb).loss.backward()
            optimizer.step()
        torch.cuda.empty_cache()  # want "CL003 .*outer loop at line 13"


def ppo_epochs(policy, optimizer, loader, ppo_epochs):
    for batch in loader:
        rollouts = policy.rollout(batch)
        for _ in range(ppo_epochs):
            policy(rollouts).loss.backward()
            optimizer.step()
            torch.cuda.empty_cache()  # want "CL001 .*step loop at line 24"


def train_step(model, optimizer, micro_batches):
    for micro in micro_batches:
        model(micro).loss.backward()
    optimizer.step()


def fit(model, optimizer, batches, max_steps):
    for step in range(max_steps):
        train_step(model, optimizer, batches[step])
        torch.cuda.empty_cache()  # want "CL001 .*step loop at line 37"


def schedule_only(lr_scheduler, queue):
    for item in queue:
        lr_scheduler.step()
        torch.cuda.empty_cache()  # want "CL004"


def convert(files, load):
    for path in files:
        state = load(path)
        for key in state.keys():
            state[key] = state[key].half()
        torch.cuda.empty_cache()  # want "CL004 .*loop at line 49"


def flush_hard():
    for _ in range(3):
        if torch.cuda.is_available():
            torch.cuda.empty_cache()  # one clean-up, repeated: silent


def sweep(models, loader, optimizer):
    for model in models:
        for batch in loader:
            model(batch).backward()
            optimizer.step()
            torch.cuda.empty_cache()  # want "CL001 .*step loop at line 64"
        del model
        torch.cuda.empty_cache()  # a model switch: silent


def do_sample(mmdit, x, sigmas):
    for i in range(len(sigmas) - 1):
        x = mmdit(x, sigmas[i])
    return x


def decode(vae, x):
    return vae.decoder(x)


def sample_one(mmdit, vae, x, sigmas):
    return decode(vae, do_sample(mmdit, x, sigmas))


def sample_all(mmdit, vae, prompts, sigmas):
    for prompt in prompts:
        sample_one(mmdit, vae, prompt, sigmas)
        torch.cuda.empty_cache()  # want "CL003 .*outer loop at line 87"


def run_sft(name):
    model = AutoModel.from_pretrained(name)
    return model


def score_file(path):
    return open(path).read()


def sweep_models(names, paths, accelerator):
    for name in names:
        run_sft(name)
        torch.cuda.empty_cache()  # each iteration loads a model through run_sft(): a model switch, silent
    for path in paths:
        score_file(path)
        torch.cuda.empty_cache()  # want "CL004"
    for pi in range(accelerator.num_processes):
        if pi == accelerator.local_process_index:
            torch.cuda.empty_cache()  # one pass of the loop: once, silent
        accelerator.wait_for_everyone()


def sft_main(config):
    return config


def test_configs(bits_list, vae_info, images, encode):
    for bits in bits_list:
        torch.cuda.empty_cache()  # want "CL003 .*runs `sft_main"
        sft_main(bits)
    for image in images:
        with vae_info.model_on_device() as vae:
            torch.cuda.empty_cache()  # the VAE is loaded onto the device for each image: a model switch, silent
            encode(vae, image)


def sweep_cases(cases, model, StateConfig):
    for case in cases:
        StateConfig.from_model(model)  # a class method, not a forward of the model
        torch.cuda.empty_cache()  # want "CL004"


class ChunkedLM(torch.nn.Module):
    def forward(self, x):
        return self.layers(x)

    def prefill(self, tokens, chunk):
        # A module's own forward per chunk: each iteration is one model forward.
        for i in range(0, len(tokens), chunk):
            self.forward(tokens[i:i + chunk])
            torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration .* runs `self.forward\\(...\\)`"


class Relay:
    def forward(self, x):
        return x

    def relay_all(self, items):
        # `forward` of a class that is no module: not a model forward.
        for item in items:
            self.forward(item)
            torch.cuda.empty_cache()  # want "CL004 torch.cuda.empty_cache.. runs on every iteration of the loop"


def rerank_all(pairs, scorer, counter):
    # A loop of no known kind, thinned by a modulo gate: still a warning, and it says so.
    results = []
    for query, doc in pairs:
        results.append(scorer(query, doc))
        counter += 1
        if counter % 10 == 0:
            torch.cuda.empty_cache()  # want "CL004 torch.cuda.empty_cache.. runs in the loop at line \\d+ .* on one iteration in 10 \\(`counter % 10 == 0`\\)"
    return results


def reset_layers(layers):
    # A loop over modules says nothing of how often: `calls` names it, no finding.
    for layer in layers:
        layer.reset_parameters()
        torch.cuda.empty_cache()
