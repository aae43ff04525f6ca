"""TorchRig (PyTorch 硬件配置助手): plan, build, check and benchmark machines for PyTorch.

The package is split so that everything except ``torchrig.gui`` is plain Python without Qt,
and torch is imported lazily (only by ``torchrig.bench`` and torch-specific detection).
"""

__version__ = "0.1.0"

APP_ID = "io.github.torchrig.TorchRig"
"""Reverse-DNS application id: .desktop file, icon, AppStream id and setDesktopFileName."""
