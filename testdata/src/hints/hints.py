from mylib.mem import flush_gpu


def on_tick(engine, batch):
    # Called once per batch by an in-house engine cachelint cannot see: step-loop-names says so.
    engine.model(batch)
    flush_gpu()  # want "CL001 mylib.mem.flush_gpu\\(\\) runs on every step: `on_tick` runs once per step \\(step-loop-names\\)"


def feed(stream, engine):
    for item in stream:  # `stream` is declared a batch iterable by step-loop-names
        engine.push(item)
        flush_gpu()  # want "CL001 .*step loop at line 11"


def setup():
    flush_gpu()  # once: silent
