"""What every generated game shares. Generic: names no city, edition or rule-book number.

`state` (the API half of a state: legal-action cache, validation, clone, JSON), `game` (a module
bound to a player count), `serialize` (checked JSON reading), `positions` (hand-written
positions), `agents` (agents and the play loop), `support` (stdlib helpers for generated modules),
and the tools of `hansa play`/`simulate` (`greedy`, `simulate`, `logs`).
Imports only the standard library (and the project's error type).
"""
