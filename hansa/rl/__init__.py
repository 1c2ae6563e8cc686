"""Adapters for reinforcement-learning libraries (install with `pip install -e '.[rl]'`).

`hansa.rl.pettingzoo.env(game, players)`: a PettingZoo AEC environment with action masks;
`hansa.rl.openspiel.register()`: one pyspiel game per built game; `hansa.rl.gymnasium`: Gymnasium
environments (one seat against agents, self-play, N games). What they share: reward choices
(`rewards`), the information-state tensor (`infostate`), rendering (`render`), the board as arrays
for graph networks (`graph`) and truncation (`common`). See docs/rl.md.
"""
