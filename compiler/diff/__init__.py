"""`hansa diff`: semantic edits between two IRs (`edits.py`). The simulated comparison and its
plot are analyses built on play: `hansa.analysis.behaviour`, `hansa.analysis.plot`."""
