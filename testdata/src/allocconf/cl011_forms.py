import os
import subprocess

# Implicit concatenation over lines: the problem points into the second literal.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = (
    "expandable_segments:True,"
    "max_split_size_mb:10"  # want "CL011 PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb:10 is below the minimum"
)
# An escaped tab: PyTorch <=2.9 strips only spaces, so it keeps the tab in the key.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True,\tmax_split_size_mb:128"  # want "CL011 .*tab or newline.*PyTorch <=2.9"
# A child process's environment is checked too (CL010 does not apply to it).
subprocess.run(["python", "train.py"], env={**os.environ, "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:1"})  # want "CL011 .*True or False exactly.*write True"
os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0")  # want "CL011 .*strictly between 0 and 1"
os.environ.update(PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:128MB")  # want "CL011 .*reads only the leading integer"
os.environ["PYTORCH_ALLOC_CONF"] = "max_split_size_mb:" + str(128) + ",expandable_segment:True"  # want "CL011 .*did you mean expandable_segments"
# A child's environment built with dict(), and a test's monkeypatch.setenv.
subprocess.run(["python", "eval.py"], env=dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="garbage_collection_threshold:1.5"))  # want "CL011 .*strictly between 0 and 1"
monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:10")  # want "CL011 PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb:10 is below the minimum"

# Silent: values cachelint cannot see, a bytes literal, and valid values in every form.
conf = os.environ.get("MY_CONF", "")
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf
os.environ["PYTORCH_CUDA_ALLOC_CONF"] += ",expandable_segments:True"
os.environb[b"PYTORCH_CUDA_ALLOC_CONF"] = b"expandable_segments:true"
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = r"expandable_segments:True"
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments: True, max_split_size_mb: 128"
os.putenv("PYTORCH_CUDA_ALLOC_CONF", "roundup_power2_divisions:[256:1,512:2,1024:4]")
os.putenv("PYTORCH_CUDA_ALLOC_CONF", "roundup_power2_divisions:[256:1,512:2,>:4]")  # want "CL012 .*overwritten by the later '>:4'.*PyTorch <=2.9"
