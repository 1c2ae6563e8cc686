"""Stage 3, rules in words: the quantity/effect catalogue, lowering expression syntax to
`nodes.expr`, type checking against a rule set's names, and compiling to plain Python text."""
