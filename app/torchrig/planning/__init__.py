"""Planning: workload requirements, builds, pricing, compatibility and analysis."""
