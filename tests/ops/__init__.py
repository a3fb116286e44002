"""Per-op parity tests: every op of shared/api.md against PyTorch 2.13, one op family a file."""
