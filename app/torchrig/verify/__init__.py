"""The plan check: run a workload's model on this machine and put measured beside predicted.

It sits above both domains it joins: it builds the model a workload describes, measures it
with the benchmark suite's timing and device helpers (``torchrig.bench``) and compares the
figures with the plan (``torchrig.planning``); neither of those imports it.

``measure`` runs the check (pilot, reduced sizes, extrapolation), ``probe`` measures one size,
``compare`` turns measurements and the plan into the rows and the JSON report, ``child`` runs
it in a process of its own (the GUI's Measure), ``cli`` is ``torchrig verify``.
``reference_models`` and ``yolo_model`` are TorchRig's own copies of the preset models.
"""
