"""What every generated game shares. Generic: names no city, edition or rule-book number."""
