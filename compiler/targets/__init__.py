"""Stage 6, code generation: one folder per target, each reading only the model."""
