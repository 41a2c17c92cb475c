import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def answer_all(model, name, prompts):
    torch.cuda.empty_cache()  # a tokenizer loads next, no model: no switch
    tokenizer = AutoTokenizer.from_pretrained(name)
    for p in prompts:
        model.generate(**tokenizer(p, return_tensors="pt").to("cuda"))


def swap(model, name):
    del model
    torch.cuda.empty_cache()  # the next model loads: a switch
    model = AutoModelForCausalLM.from_pretrained(name).cuda()
    return model
