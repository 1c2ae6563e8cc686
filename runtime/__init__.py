"""What every generated game imports, and nothing more. Generic: names no city, edition or rule.

`state` (the API half of a state: legal-action cache, validation, clone, JSON; `TableState`, the
fields every game has and the reads that only need them), `state_json` (action names, the state
JSON and its checks), `observation` (what one player may see, rule facts), `observation_tensor`,
`tables` (tables a module derives at import), `game` (a module bound to a player count),
`serialize` (checked JSON reading), `support` (stdlib helpers for generated modules), `names`
(did-you-mean and shortened names in messages), `errors`. Each generic module reads the tables a
generated module hands it. Imports only the standard library. Agents, simulation and logs are the
layer above: `hansa.play`.
"""
