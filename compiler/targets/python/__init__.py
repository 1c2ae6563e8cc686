"""The Python target: one rule module per game from the model and the jinja2 templates."""
