"""Groups of cities linked through cities where a player holds posts: the searches every game's
rules and facts run over its board (`CITY_NEIGHBORS`, one tuple of neighbouring cities per city)
with the player's posts per city (`counts`)."""

from __future__ import annotations


def groups(counts: list[int], neighbors: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    """The connected groups of the cities with counts > 0, each in search order."""
    seen = [not n for n in counts]  # a city without posts is never part of a group
    found = []
    for start in range(len(counts)):
        if seen[start]:
            continue
        seen[start] = True
        todo = [start]
        group = []
        while todo:
            c = todo.pop()
            group.append(c)
            for d in neighbors[c]:
                if not seen[d]:
                    seen[d] = True
                    todo.append(d)
        found.append(group)
    return found


def group_sizes(counts: list[int], neighbors: tuple[tuple[int, ...], ...]) -> list[int]:
    """The posts of each group of `groups`, largest first (summed during the same search, as
    the network score asks this of every position an agent weighs)."""
    seen = [not n for n in counts]
    sizes = []
    for start in range(len(counts)):
        if seen[start]:
            continue
        seen[start] = True
        todo = [start]
        size = 0
        while todo:
            c = todo.pop()
            size += counts[c]
            for d in neighbors[c]:
                if not seen[d]:
                    seen[d] = True
                    todo.append(d)
        sizes.append(size)
    sizes.sort(reverse=True)
    return sizes


def connected(counts: list[int], neighbors: tuple[tuple[int, ...], ...], a: int, b: int) -> bool:
    """Whether cities a and b are linked through cities where counts > 0."""
    if not counts[a] or not counts[b]:
        return False
    seen = {a}
    todo = [a]
    while todo:
        c = todo.pop()
        if c == b:
            return True
        for d in neighbors[c]:
            if counts[d] and d not in seen:
                seen.add(d)
                todo.append(d)
    return False
