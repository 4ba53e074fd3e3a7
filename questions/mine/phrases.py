"""Words and patterns the classifier and the order rules share: how a steerer's sentence opens
(fillers), what a value asked for can be (a number, a measurement, a profiler's view), and the
regular-expression helper they are written with."""
from __future__ import annotations

import re


def rx(p: str) -> re.Pattern:
    return re.compile(p, re.I)


FILLER = rx(r"^(?:(?:so|and|but|ok|okay|hm+|um+|also|wait|then|well|now|right|alright|plus|quick question|"
            r"question|btw|oh|ah|hey|sorry|honestly|seriously|still|yeah|yes|no|nope|hmm|\+|-|>)[\s,:;.!-]+)+")


def strip_filler(s: str) -> str:
    return FILLER.sub("", s.lstrip(" +->*#•,:;.")).lstrip(" ,:;.-")


#: What a terse "... pls" can ask the value of (a number, a measurement, a profiler's view)
MEASURABLE = rx(r"\d|%|__|\b(?:numbers?|breakdown|rate|ratio|error|err|diff|spread|variance|stdev|std|time|timing|"
                r"latency|throughput|bandwidth|occupancy|count|sizes?|mix|ncu|nsys|profile|hit|conflicts?|spills?|"
                r"registers?|regs|tflop/?s|gb/s|tb/s|values?|speedup|geomean|cycles|stalls?|sass|ptx|measurements?|"
                r"min|max|median|mean|achieved|peak|roofline|x?ptxas|sectors?|counters?|curve|sol|sections?|t?ok(?:en)?s/s|p\d{2}|utili[sz]ation|efficiency|percent(?:age)?)\b")
#: A word of content (three letters or more)
CONTENT = re.compile(r"[a-z]{3,}")
