"""Adapters for reinforcement-learning libraries (install with `pip install -e '.[rl]'`).

`hansa.rl.pettingzoo.env(game, players)`: a PettingZoo AEC environment with action masks;
`hansa.rl.openspiel.register()`: one pyspiel game per built game; `hansa.rl.gymnasium`: a
single-agent Gymnasium wrapper (the other seats played by an agent). See docs/rl.md.
"""
