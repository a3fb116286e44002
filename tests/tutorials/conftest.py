import pytest
from parity import load_lib


@pytest.fixture
def lib(request):
    """The library a case runs on: real `torch`, or `minigrad` standing in for it."""
    return load_lib(request.param)
