"""Stage 4, rule sets: the component catalogue, lowering `rules`/`game` syntax, the prelude
(catalogue kinds defined in words), `extends` resolution, the rule-set and game checks, and the
project loader's rules stage (`stage.py`)."""
