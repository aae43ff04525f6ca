"""The PC builder's domain: builds (quotes/parts lists) and their files, pricing, supplier price
lists, compatibility checks, comparison, crash recovery, the Targets table and `check` output.

This package never imports :mod:`torchrig.planning` (the workload side); planning may use it,
for what a build or a tier can do (:mod:`torchrig.builds.capabilities`)."""
