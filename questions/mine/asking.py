"""Whether a steerer's sentence asks: the sentences of a message, the forms of a question (a
wh-word that does not open a clause, an auxiliary before its subject, "can you check whether ...",
"any idea why ...", a terse "p99?"), requests and proposals, and the asking part of a message.

`classify.py` decides a message's label from these and from `information.py`; `orders.py` says when
an imperative asks for a measurement.
"""
from __future__ import annotations

import re
from functools import lru_cache

from questions.mine.orders import MEASURE_VERB, measurement_order
from questions.mine.phrases import CONTENT, MEASURABLE, SOLUTION_TERMS, rx, strip_filler
from questions.mine.topics import topics

_WH = rx(r"^(?:what|why|how|which|where|when|who|whos|who's|whose|whom|what's|whats|how's|hows|where's|why's|whys|"
         r"wat|wats|wht|waht|whta)\b")  # (as typed in a hurry)
_AUX = (r"(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|am|isn't|aren't|doesn't|"
        r"didn't|won't|wouldn't|shouldn't|can't|haven't|hasn't|don't|weren't|wasn't|'s|'re)")
# Without a question mark, a wh-word opens a question unless it opens a clause: "when you're done
# ...", "where we left off", "how the structure works", "which most people don't", "what I wanted
# to change was this".
_WH_CLAUSE = rx(r"^(?:what\s+(?:i|we|you|they|he|she|people)\s+(?!" + _AUX + r"\b|need to know)\w+|"
                r"which\s+(?:most|means|meant|makes|made|also|would mean|is why|was why)\b|"
                r"(?:when|where|how|while|whenever|wherever|who)\s+(?!" + _AUX + r"\b|much\b|many\b|long\b|"
                r"far\b|often\b|close\b|fast\b|slow\b|big\b|large\b|small\b|come\b|exactly\b|else\b)"
                r"(?:i|we|you|youre|you're|they|he|she|it|its|it's|the|a|an|this|that|these|those|our|your|"
                r"my|their|people|users|someone|somebody|anyone|anybody|one|nobody)\b)")
_AUX_Q = rx(r"^(?:(?:u|you|ya)(?=\s+sure\b)|r(?=\s+(?:u|you|we|they)\b)|is|are|was|were|does|did|has|have|had|isn't|aren't|doesn't|didn't|hasn't|haven't|wasn't|"
            r"weren't|isnt|arent|doesnt|didnt|will|would|should|shall|may|might|won't|wouldn't|shouldn't|"
            r"am|any)\b")
# "might be in the docs", "should have checked": a modal with no subject is a statement
_AUX_NOT_Q = rx(r"^\w+\s+(?:be|been|being|have|not|also|just|probably|need|needs|to|go|do|get|work|help)\b|"
                r"^have\s+(?:a\s+(?:look|go|try|think|read|peek|quick look)|fun)\b")
#: "have the warp read along the rows": a causative order, unless asked ("have the numbers changed?")
_HAVE_DO = rx(r"^ha(?:ve|s|d)\s+(?!(?:you|u|we|they|i|ya|he|she|it|there)\b)")
#: a value asked for: a suspicion said after it is what the measurement tests ("what's gpu time vs host
#: time per call? i suspect the launch dominates"), not a cause handed over
_WH_VALUE = rx(r"^(?:what'?s|whats|what\s+(?:is|are|was|were)|how\s+(?:much|many|long|fast|close|big|often))\b"
               r"(?![^?]{0,30}\b(?:caus\w*|wrong|the\s+(?:problem|issue|reason|cause|fix))\b)")
_CAN_Q = rx(r"^(?:can|could|cannot|can't|couldn't)\s+(?!you\b|u\b|we\b|ya\b)\w")
# "do we ...", "do the loads coalesce": a question; "do a git diff", "do it", "do the same": an order
_DO_Q = rx(r"^(?:do|(?:don't|dont)(?=\s+(?:we|you|they|i|he|she|it|these|those)\b))\s+"
           r"(?!(?:a|an|it|this|that|some|something|nothing|whatever|so|not|what|as|"
           r"the same|the rest|the following|the other|all of|both of|one|more|less|whatever|them|these changes)\b)"
           # "do the intra-chunk part as a small matmul": an order (not "do the loads coalesce")
           r"(?!the\s+[\w-]+(?:\s+[\w-]+)?\s+(?:as|using|via|first|separately|later)\b)"
           r"\w+(?:\s+\w+)?\s+\w+")
_REQUEST = rx(r"^(?:please\s+|pls\s+|so\s+)?(?:can|could|would|will|can't|couldn't)\s+(?:you|u|we|ya)\s+(?:please\s+)?"
              r"(?:just\s+|quickly\s+|also\s+|maybe\s+|now\s+)?(\w+)")
_ASK_VERBS = rx(r"^(?:tell|explain|show|check|verify|confirm|measure|find|figure|see|look|say|describe|"
                r"estimate|count|compute|calculate|work|determine|profile|print|compare)\b")
_WH_ANYWHERE = rx(r"\b(?:whether|if|why|what|how|which|where|when|who)\b")
_INDIRECT_Q = rx(r"^(?:(?:you|u|ya)\s+know\s+(?=what|how|why|where|which|whether|if)|any idea|any ideas|i wonder|i'm wondering|im wondering|i am wondering|i'm curious|"
                 r"im curious|curious|wondering|do you know|do you have any idea|"
                 r"(?:tell me|explain|show me|walk me through)\s+(?:why|what|how|whether|which|where|when|if))\b")
_IMPERATIVE = rx(
    r"^(?:please\s+|pls\s+|just\s+|now\s+|first\s*,?\s+|then\s+|next\s*,?\s+|also\s+|and\s+|go ahead and\s+|"
    r"i need you to\s+|i want you to\s+|i'd like you to\s+|we need to\s+|we should\s+|you need to\s+|"
    r"make sure\s+|let's\s+|lets\s+|let us\s+)*"
    r"(?:(?:have|take)\s+a\s+(?:look|go|quick look|peek)|"
    r"commit|push|pull|merge|rebase|run|rerun|re-run|test|build|rebuild|compile|update|write|add|create|open|"
    r"close|delete|remove|revert|undo|redo|fix|implement|continue|proceed|go|stop|start|restart|read|look|show|"
    r"explain|print|list|give|profile|measure|time|benchmark|bench|verify|check|make|move|rename|refactor|"
    r"document|clean|spawn|launch|install|setup|set|keep|save|record|log|report|summari[sz]e|plot|dump|count|"
    r"compare|repeat|try|use|switch|change|edit|modify|replace|review|investigate|debug|figure|find|search|"
    r"describe|note|mention|include|exclude|skip|ignore|drop|wrap|finish|publish|deploy|upload|download|"
    r"walk|help|do|ensure|capture|attach|track|tag|label|file|draft|plan|design|research|unblock|learn|"
    r"switch|checkout|check out|cd|ssh|send|post|reply|ask|rewrite|port|split|consider|think|simplify|"
    r"don't|do not|dont|never|always|avoid|quantify|analy[sz]e|inspect|instrument|assert|disable|enable|"
    r"turn off|turn on)\b")

_MEASURE_VERBS = rx(r"^(?:(?:please|just|then|and|now)\s+)*(?:run|rerun|re-run|show|measure|profile|time|print|"
                    r"count|check|compare|plot|dump|list|report|give|tell|look|read|verify|confirm|test|prove|"
                    r"repeat)\b")


_SPLIT = re.compile(r"(?<=[?!])\s+|(?<=\.)\s+(?=\S)|\.{2,}|\n+|;\s+|"
                    # a numbered step after a comma: "1) run 1k steps, 2) report the p99" (not "(split 8) 50 times")
                    r"[,;]\s+(?=\(?\d{1,2}\)\s)|\s+(?:-{1,3}|[—–])\s+(?=\w)(?![^(]*\))|"
                    r":\s+(?![^:?]{1,20}\?\s*$)|"  # (not before a short choice: "causal vs dense: ~2x or ~1x?")
                    r",\s+(?=(?:so|and|but|or)\s+which\b|(?:so\s+|and\s+|but\s+|or\s+)?(?:what|why|how|where|what's|how's|whats|wats|wat|wut|"
                    r"has|have|is|are|does|did|was|were|do|r\s+(?:u|you)|(?:u|you)\s+sure)\b)|"
                    # "... is best but did autotune actually pick that?"
                    r"\s+but\s+(?=(?:did|does|do|is|are|was|were|has|have|can|could)\s+(?:it|you|u|we|they|the|this|that|"
                    r"autotune|ncu|nsys)\b)|"
                    # "your 1.4x is vs the old seed number, measure the seed again ...": an order after a comma
                    r",\s+(?=(?:pls\s+|please\s+)?(?:measure|re-?measure|re-?time|profile|bench|benchmark|rerun|re-run|"
                    r"redo|dump|validate|prove|verify|confirm)\s+(?:it|the|this|that|both|them|each|every|all|again)\b)|"
                    r",\s+(?=(?:who|whos|who's)\s)|"
                    # "you keep claiming the conflicts are gone, got numbers for that?": evidence asked after a claim
                    r",\s+(?=(?:got|have|any)\s+(?:(?:the|some|real|actual)\s+)?(?:numbers?|data|proof|evidence|measurements?|"
                    r"sources?|a\s+source|a\s+profile)\b[^,?]{0,20}\?\s*$)|"
                    r",\s+(?=(?:can|could)\s+(?:you|u)\s+[^,?]{1,30}\?\s*$)|"
                    r",\s+(?!(?:right|correct|no|yes|yeah|true|ok|okay)\s*\?)(?=[a-z][\w-]*(?:\s+[a-z][\w-]*)?\?\s*$)",
                    re.I)  # "..., identical?" (not a tag: "..., right?")
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)


#: An order named before a colon, its object after it: one sentence ("table: case | seed | ours",
#: "A/B it: with vs without the last commit", "check memory workload analysis: l2 hit ratio").
_LABEL_ORDER = re.compile(r"^(?:pls\s+|please\s+)?(?:table|tabulate|ablate|a/b|ab test|check|re-?measure|profile|re-?time|compare|"
                          r"diff|count|dump|list|show)\b(?:\s+[\w/.-]+){0,3}$|"
                          # "query nvidia-smi while it runs: clocks, power draw, ..."
                          r"^(?:pls\s+|please\s+)?(?:query|poll|sample|watch|log)\s+(?:nvidia-smi|dcgm\w*|nvml|rocm-smi|the\s+gpu)\b(?:\s+[\w/.-]+){0,5}$|"
                          # "show me the roofline point for the kernel: achieved FLOP/s and ..."
                          r"^(?:pls\s+|please\s+)?(?:show|give|print|report|list|measure|compute|dump)\s+(?:me|us)\s+"
                          r"(?:the|a|an)\s+(?:[\w/.-]+\s+){0,6}[\w/.-]+$", re.I)
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|vs|etc|approx|cf|resp|incl|eq|fig)\.", re.I)


@lru_cache(maxsize=65536)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of a message (also split at '..', ': ' and line breaks)."""
    if "." in text:
        text = _ABBREV.sub(lambda m: m.group(0)[:-1] + "\u2024", text)  # a one-dot leader: not a full stop
    spans = []
    pos = 0
    glue = False
    for m in list(_SPLIT.finditer(text)) + [None]:
        end = m.start() if m is not None else len(text)
        a, b = pos, end
        while a < b and text[a] in ' \t"':
            a += 1
        while b > a and text[b - 1] in ' \t"':
            b -= 1
        if b > a:
            if spans and glue:  # "table: case, seed ms, ours ms", "ablate: turn off X and measure"
                a = spans.pop()[0]
            spans.append((a, b))
        glue = m is not None and text[m.start():m.end()].startswith(":") and _LABEL_ORDER.match(text[a:b]) is not None
        if m is not None:
            pos = m.end()
    return tuple(spans)


def interrogative_flags(sents: list[str]) -> list[bool]:
    """Whether each sentence of a message asks (`is_interrogative`), and the other half of a question
    split off after it ("have you looked at the metric before and after, or is that inferred from the
    runtime?"; alone, "or is my folder choice the problem?" offers a cause)."""
    flags = [is_interrogative(s) for s in sents]
    for i in range(1, len(sents)):
        if flags[i - 1] and not flags[i] and _OTHER_HALF.match(strip_filler(sents[i].lower())) and sents[i].rstrip().endswith("?"):
            flags[i] = True
    return flags


def sentences(text: str) -> list[str]:
    """The sentences of a message (also split at '..', ': ' and line breaks, as people type)."""
    return [text[a:b] for a, b in sentence_spans(text)]


#: "hw much smem is each block using", "hw bad is the tail": how, typed short (not "hw support for fp8", hardware)
_HW_HOW = re.compile(r"^hw\s+(?=(?:much|many|bad|big|long|fast|slow|far|often|close|good|large|small|high|low|"
                     r"does|do|did|is|are|was|were)\s+(?!(?:is|are|was|were)\s+not\b)\w+\s+\w)")


def is_interrogative(sentence: str) -> bool:
    """Whether one sentence asks something: a question's form (a wh-word that does not open a clause,
    an auxiliary before its subject, "can you check whether ...", "any idea why ..."), with or without
    a question mark. A request ("can we add which index it is to the log?"), a proposal ("how about
    including the sha?", "should we group runs by experiment?") or a statement with a question mark
    ("we added that test in this PR, yeah?", "or #172?") is not a question."""
    s = sentence.rstrip(" \"')]}*_")
    core = strip_filler(s.lower())
    if core.startswith("hw "):
        core = _HW_HOW.sub("how ", core)
    if _PROPOSAL.match(core):
        return False
    m = _REQUEST.match(core)
    if m:  # "can you/we <verb> ...": asks when it asks for a measurement or a question follows the verb
        rest = core[m.start(1):]
        if _CHECK_IN.match(rest):  # a commit ("can you check in the fix so we know it's saved?")
            return False
        return bool(_MEASURING.match(rest) or (_ASK_VERBS.match(m.group(1)) and _asks_within(rest))
                    or (m.group(1) in ("see", "share") and (MEASURABLE.search(rest) or topics(rest)))
                    or re.fullmatch(r"(?:verify|check|confirm|prove)(?:\s+(?:it|that|this))?\W*", rest) is not None
                    or (MEASURE_VERB.match(rest) is not None and measurement_order(rest))
                    or _REPORT_BACK.search(rest) or _AND_MEASURE.search(rest))
    lead = _LEADING_SETTING.match(core) or _CLAUSE_THEN_ASK.match(core)
    if lead and not _PLACE_STATED.match(core):
        rest = core[lead.end():]
        if is_interrogative(rest):
            return True
        if _REQUEST.match(rest):  # "when you're done could you push the branch?": the request decides
            return False
    if ((_WH.match(core) and (not _WH_CLAUSE.match(core) or _HOW_ASKED.match(core) and s.endswith("?")))
            or (_PREP_WH.match(core) and s.endswith("?"))
            or (_AUX_Q.match(core) and not _AUX_NOT_Q.match(core) and (s.endswith("?") or not _HAVE_DO.match(core)))
            or _CAN_Q.match(core) or _DO_Q.match(core) or _INDIRECT_Q.match(core)):
        return True
    # as steerers type over SSH: "l2 hit % for rmsnorm_fwd?", "stdev across 10 runs?", "achieved
    # occupancy pls", "list every case where new < old"
    measuring = _MEASURE_VERBS.match(core) is not None
    action = not measuring and _IMPERATIVE.match(core) is not None
    if s.endswith("?") and len(core.split()) <= 3:
        # "launch overhead?", "spill count?" (a verb's form, a measurement's name), "that fail flaky?"
        if re.match(r"(?:that|this)\s", core):
            if topics(core):
                return True
        elif core[:1].isalpha() and not _STATEMENT_OPEN.match(core) and (
                topics(core) or MEASURABLE.search(core) or _TERSE_CHECK.match(core)):
            return True
    if len(core.split()) <= 12 and _OR_JUST.match(core) and not _IMPERATIVE.match(core):
        return True
    if _TERSE_VS.match(core):
        return True  # "4097 vs 4096?", "fp8 vs bf16?"
    if _TERSE_OK.match(core):
        return True  # "odd seqlens ok?", "big tensors fine?" (not "that ok?", a tag)
    if (s.endswith("?") and (core[:1].isalnum() or core[:1] == "%") and not action and not _STATEMENT_OPEN.match(core)
            and not _SUBJECT_VERB_EARLY.match(core) and not _HEDGED.search(core) and not _TAG_END.search(core)
            and not _ASKS_FOR_ACTION.search(core) and 1 <= _weight(core) and len(core.split()) <= 16):
        return True
    if _PLEASE.search(core) and len(core.split()) <= 20 and (_REPORT_MEASURE.match(core) or (
            (MEASURABLE.search(core) or topics(core)) and not (_IMPERATIVE.match(core) or _ACTION_ANYWHERE.search(core)))):
        return True  # a value asked for ("err numbers pls"), or a measurement ("compare to cuBLAS pls")
    if _WANT_TO_KNOW.search(core) or _SAYS_WHAT.search(core) or _WANT_VALUE.match(core):
        return True
    if _TELL_ME_WHAT.search(core):
        return True  # "run ptxas -v on it and tell me regs per thread", "... and tell me what comes out"
    if s.endswith("?") and _IF_THEN_ASK.match(core):
        return True  # "if you change the input between calls does the output change?"
    return measuring and _REPORT_MEASURE.match(core) is not None and _asks_within(core)


#: "how the time per step grows when we go from 10k to 1m atoms?": the clause is the question (not
#: "how the cache works, right?", a tag)
_HOW_ASKED = rx(r"^how\s+(?:the|our|your|this|that|these|those|its|it|much|many)\b(?![^?]*\b(?:right|correct|yeah|yes|no|true|ok|okay|eh|huh)\s*\?\s*$)")
#: A wh-word after its preposition: "at what message size does ...?", "for which shapes is ...?" (not
#: "in which case ...", a clause)
_PREP_WH = rx(r"^(?:at|for|in|on|by|from|to|with|after|under|over|below|above|beyond|past|up\s+to|until)\s+"
              r"(?:what|which|how\s+(?:many|much|big|large|small|long|far|high|low))\b(?!\s+case\b)")
#: A setting said before the question: "for the moe scenarios whats ...", "on b8 is the kernel ..."
_LEADING_SETTING = rx(r"^(?:for|on|in|at|across|with|after|before|during)\s+"
                      r"(?:(?!(?:we|i|you|u|they|he|she|it|know|knew|think|see|saw|said|wrote)\b)[\w.%/=-]+,?\s+|"
                      # "for the stft kernel (1024-pt fft, hop 256, fp32) whats ...": its shapes in parentheses
                      r"\([^()?]{1,160}\),?\s+){1,10}?"
                      # "at batch 1 did you measure the launch latency ...?"
                      r"(?=(?:what|whats|what's|how|which)\b|(?:did|do|does|is|are|was|were|has|have)\s+(?:you|u|we|it|they|the|this|that)\b)")
#: A setting or a clause before a request that asks: "in the bfs kernel where each thread walks its
#: list, can you measure branch efficiency", "before you kick off the sweep can you check nvidia-smi"
_CLAUSE_THEN_ASK = rx(r"^(?:for|on|in|at|across|with|after|before|during|once|when|while|if|since|given)\s+[^?]{3,160}?"
                      r"(?:,\s*|\s)(?=(?:can|could|would|will)\s+(?:you|u|we|ya)\b)")
#: not a setting but a statement of what is there ("in /path/to/x is an open source repo that ...")
_PLACE_STATED = rx(r"^(?:for|on|in|at)\s+\S+(?:\s+\S+){0,3}?\s+(?:is|are|was|were|lives?|sits?)\s+(?:a|an|the|one|our|my|some)\b")
#: "i want the number without the last patch", "we need the timings per scenario"
_WANT_VALUE = rx(r"^(?:i|we)\s*(?:want|need|'d like|would like|wanna|'d love|would love)\s+(?:to see\s+)?(?:the|a|an|some)?\s*"
                 r"(?:numbers?|figures?|timings?|times?|counts?|values?|breakdown|ratios?|speedups?|measurements?|rates?|"
                 r"throughputs?|latenc(?:y|ies)|bandwidths?|errors?|curves?|plots?\s+of)\b|"
                 # "..., whichever, just need the GiB" (the value's unit, at the end)
                 r"(?:^|.*,\s*)(?:i\s+|we\s+)?(?:just|only)\s+(?:need|want)\s+(?:the\s+|a\s+)?(?:numbers?|figures?|values?|"
                 r"gib|gb|mib|mb|kib|ms|us|µs|ns|%|percent|counts?|ratio|bytes|gb/s|tb/s|tflop/?s)\s*[.!]*$")
#: "ncu says what for l1tex__t_sectors ...", "the profile shows how many ...": asked mid-sentence
_SAYS_WHAT = rx(r"\b(?:says?|shows?|gives?|reports?)\s+(?:what|how\s+(?:many|much))\b")
#: A sentence that opens with its subject and verb is a statement, question mark or not ("we added
#: that test in this PR, yeah?", "I didn't see the stop hook fire?", "the tolerance is 1e-2?").
_STATEMENT_OPEN = rx(r"^(?:or|and|but|if|i|we|you|u|it|that|this|there|he|she|they|it's|its|that's|thats|there's|"
                     r"theres|i'm|im|we're|you're|they're|i've|we've|i'd|we'd|i'll|we'll)\b|"
                     r"^(?:the|a|an|our|your|my|its|this|that|these|those)\s+(?:[\w.-]+\s+){0,3}(?:is|are|was|were|"
                     r"has|have|had|uses?|used|does|did|will|can|should|would|must|gets?|got|isn't|aren't|wasn't|"
                     r"doesn't|didn't|won't|wouldn't|can't|couldn't|shouldn't)\b")
#: "..., want to know if we spill": what is asked, said outright
_WANT_TO_KNOW = rx(r"\b(?:want|wanna|need|like|trying)\s+to\s+(?:know|see|find out|understand)\s+(?:if|whether|how|what|why|"
                   r"where|which|when)\b")
#: "crap we still have merge issues?", "so it works now?": a statement, asked to be confirmed
_SUBJECT_VERB_EARLY = rx(r"^(?:\w+\s+){0,2}(?:i|we|you|they|it|that|this)\s+(?:\w+\s+)?(?:have|has|had|are|is|was|were|"
                         r"do|did|does|still|also|just|need|needs|think|guess|want|works?|worked|broke|fixed|got)\b")
#: "I guess they were from the old branch?", "maybe the tile is too big?": a guess offered
_HEDGED = rx(r"\b(?:i guess|i think|i suspect|i believe|i assume|i suppose|probably|presumably|maybe|perhaps)\b")
_TAG_END = rx(r"\b(?:right|correct|yeah|yes|no|true|ok|okay|eh|huh)\s*\?\s*$")
#: An action named anywhere in a "please" sentence ("the status doc, update it please"): a directive
_ACTION_ANYWHERE = rx(r"\b(?:update|fix|add|write|make|change|create|remove|delete|log|document|commit|push|merge|"
                      r"implement|refactor|rename|move|install|open|close|try|use|switch|revert|undo|continue|go|"
                      r"help|do|clean|edit|modify|replace|finish|file|draft|send|post|run|rerun|build|rebuild|"
                      r"analy[sz]e|investigate|review|read|look|check)\b")
#: "for now can we document it?", "..., can you analyze the codebase?": a request inside the sentence
_ASKS_FOR_ACTION = rx(r"\b(?:can|could|would|will|should|shall)\s+(?:we|you|u|i)\b|\blet'?s\b")
#: A value asked for with a "please" ("err numbers pls", "ncu occupancy for attn_fwd please").
_PLEASE = rx(r"\b(?:pls|plz|please|plez)\b")
#: An imperative that asks for a report of something ("list every case where ...", "show which ...").
_REPORT_MEASURE = rx(r"^(?:(?:please|pls|plz|just|then|and|now)\s+)*(?:list|show|print|report|plot|count|measure|time|"
                     r"profile|compare|tell me|explain|quantify|estimate)\b")
#: An action followed by the question it is for: "... and tell me what comes out" (not "... and show me
#: the summary", a directive, nor "... and tell me when it's done")
_TELL_ME_WHAT = rx(r"\b(?:and|then|,)\s+(?:tell|let)\s+me\s+(?:know\s+)?(?:what|how|whether|if|which|where|why|"
                   r"the\s+numbers?|the\s+count|regs)\b")
#: A question after a condition: "if you change the input, does the output change?"
_IF_THEN_ASK = rx(r"^(?:if|when|once|after)\s+[^?]{3,140}?[\s,]\s*(?:does|do|did|is|are|was|were|will|would|can|could|has|"
                  r"have)\s+(?:the|it|we|you|u|they|this|that|these|those|our|your|its)\b")


#: A proposal asked as a question: the steerer's own plan, handed over for agreement.
_PROPOSAL = rx(r"^(?:(?:how|what)\s+about(?!\s+(?:the\s+|a\s+)?(?:small|smaller|large|larger|big|bigger|tiny|huge|odd|other|edge|"
               r"empty|short|long)\s+(?:grids?|sizes?|shapes?|inputs?|cases?|batch\w*|problems?|matri\w+|rows?|seq\w*)\b)(?=\s+(?:\w+ing|a|an|one|just|instead|adding|trying)\b|[^?]*\b" + SOLUTION_TERMS + r"\b)|(?:maybe|might be|may be|probably)\s+worth|(?:might|would|could|is|isn't|wouldn't)\s+it\s+(?:not\s+)?(?:be\s+)?"
               r"worth\s+(?:trying|using|switching|moving|adding|doing|testing\s+out)\b|what if (?:we|you|i)|should we|shall we|shouldn't we|could we not|"
               r"(?:shouldn't|shouldnt|should)\s+(?:you|u)\s+(?:be\s+)?(?!(?:have|know|check|verify|measure|test|profile|run|rerun)\b)\w+|"
               r"can we not|can't we|cant we|couldn't we|why don't we|we could|we can|we should|let's|lets|let us|"
               r"maybe we)\b")


#: A request whose verb itself asks for a number ("can you compare X with Y", "can u profile it").
_MEASURING = rx(r"^(?:compare|measure|profile|count|estimate|compute|calculate|time|quantify|nsys|ncu|bench|"
                r"benchmark|print|report|dump|break\s+(?:it\s+|this\s+|that\s+)?down)\b|"
                # "can you confirm the mma path is taken", "verify the gemm gives the right answer": a claim to check
                r"^(?:confirm|verify|check)\s+(?:that\s+|whether\s+|if\s+)?[^?]{0,60}?\b(?:is|are|was|were|gives?|"
                r"match(?:es)?|pass(?:es)?|works?|holds?|stays?|takes?|produces?|returns?|contains?|includes?|uses?|has|"
                r"have|runs?|hits?|lands?)\b|"
                # "can you confirm with the transfer counts that nothing goes back to the host": a claim checked
                # against a measurement named (not "confirm with the team that we ship")
                r"^(?:confirm|verify|check|show)\s+(?:with|from|using|against|by)\s+(?:the\s+|a\s+|your\s+)?[^?]{0,40}?\b(?:counts?|"
                r"numbers?|counters?|profiles?|profiler|ncu|nsys|timings?|traces?|logs?|measurements?|metrics?|"
                r"stats)\b[^?]{0,20}?\bthat\b")
#: "... and count the kernels", "... and tell me the number": the action is there to measure
_AND_MEASURE = rx(r"(?:\b(?:and|then)|\s&)\s+(?:count|measure|time|compare|quantify|tell|show|give|report|let me know|grab|pull|"
                  r"get|dump|print|paste|collect|"
                  r"check|verify|confirm)\b")
#: A request that asks for the result to be reported ("... and tell me the number", "... so we know where
#: the roof is", "can u paste it"): a measurement asked for, not an action.
_REPORT_BACK = rx(r"\b(?:tell|show|give)\s+(?:me|us)\b|\bpaste\b|\breport\s+(?:back|the)\b|"
                  r"\bso\s+(?:we|i|you)\s+(?:know|(?:can\s+)?see)\b")


def _asks_within(s: str) -> bool:
    return bool(_WH_ANYWHERE.search(s) or _TO_CONFIRM.search(s))


#: "check in the fix": a commit (not "check in the profiler whether ...", a look)
_CHECK_IN_WORDS = r"check\s+in\s+(?:the\s+|your\s+|my\s+|our\s+)?(?:fix|fixes|change|changes|patch|work|code|it|them|this|that)\b"
_CHECK_IN = rx("^" + _CHECK_IN_WORDS)
#: a look whose purpose is a finding: "check the ptx to confirm it emits wgmma", "... so we know the
#: loads go through TMA" (not "check in the fix")
_TO_CONFIRM = rx(r"^(?!" + _CHECK_IN_WORDS + r")[^?]{0,80}?\b(?:to\s+(?:confirm|verify|see|make\s+sure|find\s+out|prove)|"
                 r"so\s+(?:that\s+)?(?:we|i|u|you)\s+(?:can\s+)?(?:know|see|confirm|tell))\b")


_REQUEST_WITHIN = rx(r"\b(?:we can|you can|we could|you could|let's|lets|please|go ahead and|i want you to|"
                     r"i need you to|make sure)\s+(?:just\s+|also\s+|now\s+)?(?:commit|push|merge|run|rerun|test|"
                     r"build|update|write|add|create|open|delete|remove|revert|fix|implement|continue|do|make|"
                     r"move|check|verify|measure|profile|show|try|use|change|set|finish|publish|record|save)\b|"
                     r"\b(?:commit|push|merge|deploy|publish)\s+(?:and|&|then)\s+(?:push|merge|deploy|publish)\b")


def is_request(sentence: str) -> bool:
    """An action asked for: "can you ...", an imperative, or "please <verb>" inside the sentence."""
    core = strip_filler(sentence.lower())
    return bool(_REQUEST.match(core) or _IMPERATIVE.match(core) or _REQUEST_WITHIN.search(core))




_LIGHT = frozenset("""why what how which where when who whose this that these those there here the and but you your
our are was were does did can could would should will have has had its it's about with from into out for not any
some just really also maybe please think figure find way ones one get got now still then than them they their
we're you're that's what's""".split())


def _weight(s: str) -> int:
    return sum(1 for w in CONTENT.findall(s.lower()) if w not in _LIGHT)


def question_part(text: str, spans: list[tuple[int, int]], flags: list[bool]) -> str:
    """The interrogative sentences, each with the measurement requests that follow it, as written.

    A question too light to stand alone ("can we figure out why?", "is it noise?") keeps the
    short sentence before it, which says what it is about."""
    sents = [text[a:b] for a, b in spans]
    keep: list[int] = []
    after_question = False
    for i, (s, q) in enumerate(zip(sents, flags)):
        if q:
            if _weight(s) <= 1 and not after_question:
                j = i - 1
                while j >= 0 and _weight(sents[j]) == 0:
                    j -= 1
                if j >= 0 and not flags[j] and len(sents[j].split()) <= 25:
                    keep.extend(range(j, i))
            keep.append(i)
            after_question = True
        elif after_question and _MEASURE_VERBS.match(strip_filler(s.lower())):
            keep.append(i)
        else:
            after_question = False
    # contiguous sentences keep the words between them (": ", ", "), others are joined by a space
    parts: list[str] = []
    run_start = run_end = None
    last = None
    for i in keep:
        a, b = spans[i]
        if last is not None and i == last + 1:
            run_end = b
        else:
            if run_start is not None:
                parts.append(text[run_start:run_end])
            run_start, run_end = a, b
        last = i
    if run_start is not None:
        parts.append(text[run_start:run_end])
    out = " ".join(" ".join(p.split()) for p in parts)
    return out.replace("..", " ").replace("  ", " ")


#: "verify kernel correct?": a check asked in a few words
_TERSE_CHECK = rx(r"^(?:verify|check|confirm)\s+\w+")
#: "full ci green or just ur one test": a choice between a whole run and a part of it, asked without "?"
_OR_JUST = rx(r"^(?!(?:i|we|you|u|it|that|this|they)\b)[^?]{2,60}\bor\s+(?:just|only)\s+(?:the\s+|ur\s+|your\s+|a\s+|one\s+)?\w+")
#: "..., or is that inferred from the runtime?": the second half of a question
_OTHER_HALF = rx(r"^or\s+(?:is|are|was|were|does|did|do|has|have|can|could|would|will)\s+(?:it|that|this|they|these|those|the|you|u|we)\b")
#: "4097 vs 4096?": a comparison asked in three words
_TERSE_VS = rx(r"^[\w.+/-]+\s+(?:vs\.?|versus)\s+[\w.+/-]+\s*\?$")
#: "odd seqlens ok?": a terse asking whether a case works ("that ok?" is a tag)
_TERSE_OK = rx(r"^(?!(?:that|this|it|all|everything|we|you|u|i|so|and|ok|okay)\b)(?:[\w.+/-]+\s+){1,3}"
               r"(?:ok|okay|fine|good|handled|covered|safe|correct|valid)\s*\?$")


def opens_as_question(core: str) -> bool:
    """A wh-word or an auxiliary opens the sentence (its lowered core, fillers stripped): "do the last
    values come out right?" too."""
    return bool(_WH.match(core) or _AUX_Q.match(core) or _DO_Q.match(core))


def asks_value(core: str) -> bool:
    """"what's ...", "how much ...": a value asked for (not its cause: "what's wrong")."""
    return _WH_VALUE.match(core) is not None


def is_proposal(core: str) -> bool:
    """The steerer's own plan handed over for agreement ("should we ...", "how about using ...")."""
    return _PROPOSAL.match(core) is not None


def prose(text: str) -> str:
    """A message without its fenced code (pasted code asks nothing)."""
    return _CODE_FENCE.sub(" ", text) if "```" in text else text
