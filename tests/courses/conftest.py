import pytest
from tutorials.conftest import lib  # noqa: F401 - the same `lib` fixture as the tutorial tests


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """The course models are tiny: PyTorch's worker threads only fight over a busy machine's
    cores (a 4-second AdamW loop takes 0.05 s on one thread). Restored after each module."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
