"""A pipeline-parallel Llama-2-7B workload opened in the Wizard through its Open workload…
button, planned on a tier with GPUs so the speed (and the pipeline's busy share) is shown: the
set-up of the Wizard's pipeline field tests."""

from __future__ import annotations

from collections.abc import Callable

from gui_gestures import button, choose, click, go_to

from torchrig.planning.workload import save_workload, workload_from_options


def open_pipeline(window, qtbot, file_dialogs, tmp_path, **options) -> Callable[[], str]:
    """Open the workload (2 GPUs, pp_size 2, plus ``options``); returns a function giving the
    planned speed's note, where the busy share is written."""
    page = window.wizard_page
    go_to(qtbot, window, "wizard")
    path = tmp_path / "pipeline.json"
    save_workload(workload_from_options(task="llm_finetune_full", model="llama-2-7b",
                                        precision="amp_bf16", batch=1, gpus=2,
                                        strategy="pipeline_parallel", pp_size=2, **options),
                  path)
    file_dialogs[0].append(str(path))
    click(qtbot, button(page, "open_workload"))
    choose(page.subject_box, "tier:enterprise")  # a tier with GPUs: the speed is planned

    def busy_note() -> str:
        a = page.analysis
        item = a.requirements.throughput.get("samples_per_s_per_gpu") if a else None
        return item.note.en if item is not None else ""

    return busy_note


def show_field(page, key: str):
    """The Wizard's field ``key``, its step's tab made current (as a user clicks to it)."""
    field = page.widgets[key]
    page.tabs.setCurrentIndex(next(i for i in range(page.tabs.count())
                                   if page.tabs.widget(i).isAncestorOf(field)))
    return field
