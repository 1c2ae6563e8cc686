"""Generated rule modules, one per game: written by `hansa build`, never edited by hand."""
