"""An independent count of what autograd keeps for backward, for verify's tests: a walk over the
graph behind a loss summing every tensor a node keeps (``grad_fn._saved_*`` saved variables and
a custom Function's ``saved_tensors``), each storage once, the model's parameters and buffers
left out - a second method beside verify's ``saved_tensors_hooks`` count."""

from __future__ import annotations

import torch

wrapped_numbers: list[int] = []  # bytes of the Python numbers the last walk left out


def independent_saved_bytes(loss: torch.Tensor, model: torch.nn.Module) -> int:
    """Every tensor the graph behind ``loss`` keeps for backward, read from the nodes'
    ``_saved_*`` attributes (and a custom Function's ``saved_tensors``), each storage once,
    the model's parameters and buffers excluded."""
    excluded = {t.untyped_storage().data_ptr()
                for t in [*model.parameters(), *model.buffers()]}
    seen: set[int] = set()
    total = 0
    wrapped_numbers.clear()
    stack, visited = [loss.grad_fn], set()

    def add(value: object) -> None:
        nonlocal total
        if isinstance(value, torch.Tensor):
            storage = value.untyped_storage()
            ptr = storage.data_ptr()
            if ptr not in excluded and ptr not in seen and storage.nbytes() > 0:
                seen.add(ptr)
                total += storage.nbytes()
        elif isinstance(value, (tuple, list)):
            for item in value:
                add(item)

    while stack:
        node = stack.pop()
        if node is None or id(node) in visited:
            continue
        visited.add(id(node))
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            value = getattr(node, name)
            if isinstance(value, torch.Tensor) and value.dim() == 0 \
                    and value.dtype in (torch.float64, torch.int64) and not value.requires_grad:
                # A Python number (x * 0.5's 0.5, x / 2's 2) kept as an 8-byte wrapped number:
                # autograd keeps it outside saved_tensors_hooks, so verify cannot see it;
                # noted apart.
                wrapped_numbers.append(value.untyped_storage().nbytes())
                continue
            add(value)
        if hasattr(node, "saved_tensors"):
            add(node.saved_tensors)
        stack.extend(fn for fn, _ in node.next_functions)
    return total
