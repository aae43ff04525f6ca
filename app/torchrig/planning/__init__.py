"""The workload side: Workload -> Requirements, analysis -> Findings, presets, scaling."""
