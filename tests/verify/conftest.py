"""verify's tests: torchvision imported as verify imports it, where it is installed."""

from __future__ import annotations

import importlib.util


def pytest_configure(config):
    """Where torchvision is installed, import it as verify does (without its compiled operators
    when its wheel was built for another torch, docs/verify.md): transformers imports torchvision
    whenever it is installed, and the tests here that build transformers models as their
    independent oracle would otherwise fail on a torchvision that cannot load its operators."""
    if importlib.util.find_spec("torchvision") is not None:
        from torchrig.verify.library_models import torchvision_without_ops

        torchvision_without_ops()
