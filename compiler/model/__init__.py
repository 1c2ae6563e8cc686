"""Stage 5, the model: a game's rules and board folded into tables and switches (`build.py`), the
contract every code-generation target reads."""
