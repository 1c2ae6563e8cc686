"""The typed nodes every later stage hands on (jinja2's `nodes`): the board IR (`board.py`), the
rules IR (`rules.py`) and the rules in words (`expr.py`). Plain dataclasses; no stage logic."""
