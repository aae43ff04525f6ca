"""Diffusion workloads in the Wizard: the sample files open through its button, the new fields
take clicks and typing, and the lists read as words in Chinese."""

from __future__ import annotations

from pathlib import Path

from gui_gestures import button, choose, click, go_to, show_tab_of, type_text

from torchrig.gui.qt import QFileDialog, Qt
from torchrig.planning.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]


def _open_with_the_button(window, qtbot, monkeypatch, path):
    """The Wizard page after its "Open workload…" button opened ``path``."""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    click(qtbot, button(page, "open_workload"))
    return page


def test_a_diffusion_workload_opens_and_its_fields_edit(window, qtbot, monkeypatch):
    path = ROOT / "workloads" / "dit-xl2-train.json"
    page = _open_with_the_button(window, qtbot, monkeypatch, path)
    assert page.workload == load_workload(path)
    assert page.widgets["ema"].isChecked()
    # Denoising steps are for generation: typed into a training run, the field says so.
    steps = page.widgets["denoising_steps"]
    show_tab_of(qtbot, page.tabs, steps)
    type_text(qtbot, steps, "30")
    qtbot.waitUntil(lambda: page.errors["denoising_steps"].isVisible(), timeout=10_000)
    assert "inference only" in page.errors["denoising_steps"].text()
    type_text(qtbot, steps, "")
    qtbot.waitUntil(lambda: not page.stale, timeout=10_000)
    latents = page.widgets["precomputed_latents"]
    show_tab_of(qtbot, page.tabs, latents)
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    before = page.analysis.requirements.throughput["flops_per_sample"].value
    latents.setFocus()
    qtbot.keyClick(latents, Qt.Key.Key_Space)  # the box has no text to click on: use the key
    qtbot.waitUntil(lambda: page.workload.precomputed_latents, timeout=10_000)
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    # No VAE encoder in each step any more.
    assert page.analysis.requirements.throughput["flops_per_sample"].value < before


def test_diffusion_presets_are_in_the_chinese_wizard_with_human_names(qtbot, zh):
    from torchrig.gui.main_window import MainWindow

    window = MainWindow(lang="zh")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    task = page.widgets["task"]
    assert task.itemText(task.findData("image_generation")) == "图像生成（扩散模型）"
    choose(task, "image_generation")
    model = page.widgets["model"]
    qtbot.waitUntil(lambda: model.findData("sdxl-base-1.0") >= 0, timeout=5000)
    assert model.itemText(model.findData("dit-xl-2-256")) == "DiT-XL/2（256 像素）"
    assert model.itemText(model.findData("sd-1.5")) == "Stable Diffusion 1.5（U-Net）"
    choose(model, "sdxl-base-1.0")
    size = page.widgets["image_size"]
    show_tab_of(qtbot, page.tabs, size)
    type_text(qtbot, size, "1024")
    qtbot.waitUntil(lambda: page.workload.model == "sdxl-base-1.0"
                    and page.workload.image_size == 1024, timeout=10_000)
    assert "图像生成" not in page.time_target_edit.placeholderText()  # a field of its own
    assert page.time_target_edit.placeholderText() == "无时间目标"
    window.close()


def test_guidance_is_chosen_in_the_wizard_and_halves_the_work(window, qtbot, monkeypatch):
    path = ROOT / "workloads" / "sdxl-inference.json"
    page = _open_with_the_button(window, qtbot, monkeypatch, path)
    guidance = page.widgets["guidance"]
    assert guidance.currentData() == "on" and page.workload.guidance is True
    # FLOPs per image: the test machine has no GPU to turn them into seconds.
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    before = page.analysis.requirements.throughput["flops_per_sample"].value
    show_tab_of(qtbot, page.tabs, guidance)
    choose(guidance, "off")
    qtbot.waitUntil(lambda: page.workload.guidance is False, timeout=10_000)
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    after = page.analysis.requirements.throughput["flops_per_sample"].value
    assert 0.45 * before < after < 0.55 * before  # one denoiser pass per step, not two
    choose(guidance, "default")
    qtbot.waitUntil(lambda: page.workload.guidance is None, timeout=10_000)
    # Guidance is a generation setting: a training run refuses it, naming the field.
    mode = page.widgets["mode"]
    show_tab_of(qtbot, page.tabs, mode)
    choose(mode, "finetune")
    choose(guidance, "off")
    steps = page.widgets["denoising_steps"]  # the file's 50 steps are refused first
    qtbot.waitUntil(lambda: "inference only" in page.errors["denoising_steps"].text(),
                    timeout=10_000)
    show_tab_of(qtbot, page.tabs, steps)
    type_text(qtbot, steps, "")
    qtbot.waitUntil(lambda: page.errors["guidance"].isVisible(), timeout=10_000)
    assert "inference only" in page.errors["guidance"].text()
