"""torch.backends.cudnn: no cuDNN here, so its switches are plain settable module flags."""

deterministic = False
benchmark = False
enabled = True
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
