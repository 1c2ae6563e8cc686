"""hansa: a compiler for the rules of Hansa Teutonica.

Import names live under this namespace: `hansa.compiler` (DSL → IR → checks → generated modules),
`hansa.runtime` (what every generated game shares) and `hansa.generated` (one module per game).
"""

from hansa.compiler.errors import HansaError

__all__ = ["HansaError"]
