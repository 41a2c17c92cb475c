from kit.memory import cleanup


def flush_all():
    cleanup()
