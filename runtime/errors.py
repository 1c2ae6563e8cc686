"""The project's one error type, re-exported for the runtime.

`hansa.compiler.errors` imports nothing but the standard library, so the runtime stays stdlib-only
while raising the same `HansaError` every other stage raises (one `except` for callers).
"""

from hansa.compiler.errors import HansaError

__all__ = ["HansaError"]
