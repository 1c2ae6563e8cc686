"""The native target: C rule code rendered from the same model as the Python target, built into
an extension module with the system C compiler (docs/native.md)."""
