"""The benchmark suite in a child process of its own, and the pipe both TorchRig children use.

``channel`` is the JSON-lines pipe (parent and child side, shared with the plan check's
child), ``protocol`` the suite's messages, ``child`` the process (``python -m
torchrig.bench.process.child``) and ``isolated`` the parent that starts and follows it. A
kernel crash or an out-of-memory kill ends the child, never the window.
"""
