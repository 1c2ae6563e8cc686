"""`hansa diff`: semantic edits between two IRs (`edits.py`), the simulated comparison
(`behaviour.py`) and its plot (`plot.py`)."""
