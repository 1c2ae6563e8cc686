"""Generated rule modules, one per game: written by `hansa build`, never edited by hand.

`_index.GAMES` maps each game name to its module name (also written by `hansa build`).
"""
