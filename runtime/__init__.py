"""What every generated game imports, and nothing more. Generic: names no city, edition or rule.

`state` (the API half of a state: legal-action cache, validation, clone, JSON), `game` (a module
bound to a player count), `serialize` (checked JSON reading), `support` (stdlib helpers for
generated modules), `names` (did-you-mean and shortened names in messages), `errors`.
Imports only the standard library. Agents, simulation and logs are the layer above: `hansa.play`.
"""
