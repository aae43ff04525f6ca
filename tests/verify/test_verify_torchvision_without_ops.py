"""verify imports a torchvision whose compiled operators cannot load (a wheel built for another
torch) without them, and says so; any other import failure is still refused with its reason.

A stand-in torchvision package is written here, shaped like the real one's start-up: its
``__init__`` imports ``_meta_registrations``, which registers kernels for compiled operators -
and fails with the error torch raises when that library was not loaded.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

pytest.importorskip("torch")

from torchrig.verify.library_models import (  # noqa: E402 - after the torch check
    LibraryMissing,
    import_library,
    torchvision_without_ops,
)


@pytest.fixture
def fake_torchvision(tmp_path, monkeypatch):
    """Write a torchvision package whose op registration fails with ``error`` (or not)."""
    saved = {m: mod for m, mod in sys.modules.items()
             if m == "torchvision" or m.startswith("torchvision.")}
    for m in saved:
        monkeypatch.delitem(sys.modules, m)
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(error: str | None) -> None:
        pkg = tmp_path / "torchvision"
        pkg.mkdir()
        (pkg / "__init__.py").write_text(textwrap.dedent("""
            from . import _meta_registrations, _autograd_registrations, models
            __version__ = "0.0.test"
        """))
        raise_line = f"raise RuntimeError({error!r})" if error else "REGISTERED = True"
        (pkg / "_meta_registrations.py").write_text(raise_line + "\n")
        (pkg / "_autograd_registrations.py").write_text(raise_line + "\n")
        (pkg / "models.py").write_text("def get_model(name, weights=None):\n    return name\n")

    yield write
    for m in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[m]
    sys.modules.update(saved)


def test_missing_compiled_operators_import_the_models_and_say_so(fake_torchvision):
    fake_torchvision("operator torchvision::nms does not exist")
    note = torchvision_without_ops()
    assert note is not None
    assert note.en.startswith("torchvision 0.0.test without its compiled operators "
                              "(operator torchvision::nms does not exist: the wheel was built "
                              "for another torch than ")
    assert note.en.endswith("its models run, nms / roi_align / deform_conv2d do not")
    assert note.zh.startswith("torchvision 0.0.test 未加载其编译算子")
    module = import_library("torchvision")
    assert module.models.get_model("resnet18") == "resnet18"  # the package's own code ran
    # Both registration modules were left out (empty stand-ins), nothing else.
    for name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        assert not hasattr(sys.modules[name], "REGISTERED")
    assert torchvision_without_ops() == note  # asked again: the same answer, no re-import


def test_a_whole_torchvision_has_no_note(fake_torchvision):
    fake_torchvision(None)
    assert torchvision_without_ops() is None
    assert sys.modules["torchvision._meta_registrations"].REGISTERED is True


def test_any_other_import_failure_is_refused_with_its_reason(fake_torchvision):
    fake_torchvision("CUDA driver version is insufficient for CUDA runtime version")
    with pytest.raises(LibraryMissing) as missing:
        import_library("torchvision")
    assert "does not import beside torch" in missing.value.msg.en
    assert "CUDA driver version is insufficient" in missing.value.msg.en
    assert "torchvision" not in sys.modules or sys.modules["torchvision"] is None or \
        not hasattr(sys.modules["torchvision"], "_torchrig_without_ops")
