"""The plan check (:func:`torchrig.verify.measure.verify`) in a process of its own.

The Wizard's "Measure" runs a workload's own model with torch: on a GPU a model that does not
fit, a driver fault or the kernel's out-of-memory killer can end the process that runs it, and
torch's import holds the interpreter lock for a quarter of a second. So the window runs it with
:func:`run_verify_isolated`, which starts ``python -m torchrig.verify.child`` through
:mod:`torchrig.bench.process.channel` and follows it.

Protocol (one request line in; JSON lines out): the request is ``{"workload": {...},
"device": "auto", "steps": 3, "source": {...} or null}`` (``source``: whose model,
:meth:`~torchrig.verify.sources.ModelSource.to_dict`; null: the preset's own library model,
or the reference model where none exists). The child answers ``progress`` lines (``done``,
``total``, ``message``), then one of ``verified`` (``result``: :meth:`VerifyResult.to_dict`),
``refused`` (``message`` in both languages: what cannot be measured, bad input, or the
model's own error in one line), or ``cancelled``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from torchrig.bench.process.channel import (
    VERIFY_PROCESS,
    Channel,
    describe_exit,
    parse_line,
    parse_request,
    run_child,
    serve,
)
from torchrig.bench.process.watchdog import SILENCE_TIMEOUT_S
from torchrig.errors import InputError
from torchrig.i18n import Msg

CHILD_MODULE = "torchrig.verify.child"


def read_request(line: str) -> dict[str, Any]:
    return parse_request(line, "workload", "measurement child")


def work(request: dict[str, Any], channel: Channel, cancel: threading.Event) -> int:
    from torchrig.bench.base import Cancelled
    from torchrig.bench.settings import resolve_device
    from torchrig.planning.workload import Workload
    from torchrig.verify.measure import MIN_STEPS, VerifyError, VerifyProgress, device_for_plan
    from torchrig.verify.measure import verify as run_verify
    from torchrig.verify.sources import ModelSource

    def progress(p: VerifyProgress) -> None:
        channel.send("progress", done=p.done, total=p.total, message=p.message.to_dict())

    try:
        workload = Workload.from_dict(request["workload"], where="workload")
        device = resolve_device(str(request.get("device") or "auto"))
        steps = request.get("steps") or MIN_STEPS
        source = request.get("source")
        result = run_verify(workload, device, steps, cancel=cancel, progress=progress,
                            gpu=device_for_plan(device),
                            source=None if source is None else ModelSource.from_dict(source))
    except Cancelled:
        channel.send("cancelled")
        return 0
    except VerifyError as exc:
        channel.send("refused", message=exc.msg.to_dict())
        return 2
    except InputError as exc:
        msg = getattr(exc, "msg", None)  # the library and factory errors carry both languages
        channel.send("refused", message=msg.to_dict() if isinstance(msg, Msg) else
                     {"en": str(exc), "zh": str(exc)})
        return 2
    except Exception as exc:  # the user's own model code: any exception is its answer
        first = str(exc).splitlines()[0][:300] if str(exc) else ""
        text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
        channel.send("refused", message={"en": f"the model failed: {text}",
                                         "zh": f"模型运行失败：{text}"})
        return 2
    channel.send("verified", result=result.to_dict())
    return 0


def main() -> None:
    serve(read_request, work)


# --- the parent --------------------------------------------------------------------------------


class MeasureFailed(InputError):
    """No measurement: the child refused the workload (what cannot be measured, and why), or
    it ended without an answer (a crash, the out-of-memory killer). ``msg`` is in both
    languages; ``details`` holds the end of the child's stderr after a crash."""

    def __init__(self, msg: Msg, details: str = "") -> None:
        super().__init__(msg.en)
        self.msg = msg
        self.details = details


def run_verify_isolated(workload: Any, *, cancel: threading.Event,
                        progress: Callable[[Any], None] | None = None, device: str = "auto",
                        steps: int | None = None, env: Mapping[str, str] | None = None,
                        silence_s: float = SILENCE_TIMEOUT_S, source: Any = None) -> Any:
    """Measure ``workload`` in a child process; the :class:`VerifyResult`, or None when
    ``cancel`` stopped it. A child that sends nothing (no heartbeat, no progress) for
    ``silence_s`` is ended as stopped or hung (:mod:`torchrig.bench.process.watchdog`).

    ``progress`` receives :class:`~torchrig.verify.measure.VerifyProgress` records on this
    thread.

    Raises:
        MeasureFailed: the workload cannot be measured (the child's reason), or the child
            ended without an answer (how it ended, and the end of its stderr), or the
            watchdog ended it (which process, its pid, for how long it was silent).
        BenchProcessError: the child could not be started.
    """
    from torchrig.verify.compare import VerifyResult
    from torchrig.verify.measure import VerifyProgress

    answer: dict[str, Any] = {}

    def on_line(line: str) -> bool:
        message = parse_line(line)
        if message is None:
            return False
        kind = message["type"]
        if kind == "progress" and progress is not None:
            text = message.get("message") or {}
            progress(VerifyProgress(int(message["done"]), int(message["total"]),
                                    Msg(str(text.get("en", "")), str(text.get("zh", "")))))
            return False
        if kind in ("verified", "refused", "cancelled", "input_error"):
            answer.update(message)
            return True
        return False

    request = {"workload": workload.to_dict(), "device": device, "steps": steps,
               "source": None if source is None else source.to_dict()}
    # A library model is built from its config with random weights: nothing may reach the
    # Hugging Face hub from the child.
    offline = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    end = run_child(CHILD_MODULE, request, cancel=cancel, on_line=on_line, what=VERIFY_PROCESS,
                    env=offline, silence_s=silence_s)
    kind = answer.get("type")
    if kind == "verified":
        return VerifyResult.from_dict(answer["result"], "measurement child")
    if kind == "refused":
        text = answer.get("message") or {}
        raise MeasureFailed(Msg(str(text.get("en", "")), str(text.get("zh", ""))))
    if kind == "input_error":
        raise InputError(str(answer.get("message", "bad input")))
    if kind == "cancelled" or end.killed_for_cancel or cancel.is_set():
        return None
    if end.silent is not None:
        raise MeasureFailed(Msg(f"{end.silent.en}; nothing was measured",
                                f"{end.silent.zh}；测量未完成"), "\n".join(end.stderr_tail))
    ended = describe_exit(end.returncode, VERIFY_PROCESS)
    last = f": {end.last_words()[:300]}" if end.last_words() else ""
    raise MeasureFailed(Msg(f"{ended.en} before it finished{last}",
                            f"{ended.zh}，测量未完成{last}"), "\n".join(end.stderr_tail))


if __name__ == "__main__":
    main()
