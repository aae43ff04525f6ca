"""The published reference the planner is judged by (issue 24): rows, and the harness that
plans each row's setup and compares the figure with the published one. See
docs/published-reference.md."""
