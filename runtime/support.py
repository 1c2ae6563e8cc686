"""Standard-library helpers for generated modules, which import nothing but the runtime."""

from bisect import bisect_left, insort
from random import Random

__all__ = ["Random", "bisect_left", "insort"]
