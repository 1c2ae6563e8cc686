"""The analyses built on play: the behavioural comparison of two rule sets (`behaviour.py`: each
side simulated with `hansa.play.simulate`, compared game by game) and its plot (`plot.py`)."""
