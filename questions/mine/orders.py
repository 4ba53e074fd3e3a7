"""Orders to measure: when an imperative is a steering question.

"pls dump the resource usage", "run attn_bwd twice and diff the outputs", "table: case | seed |
ours" ask for a measurement to be made and reported, as a question does; "profile it with ncu",
"rerun the full evaluation", "time it and commit" are orders. `measurement_order` tells them
apart for a message that asks nothing else (classify.py decides when it applies).
"""
from __future__ import annotations

from questions.mine.phrases import CONTENT, MEASURABLE, REPEATS, rx, strip_filler
from questions.mine.topics import topics

#: an input tried: "try seqlen 1000 instead of 1024 ...", "try scaling the inputs up 100x ..."
TRY_INPUT = rx(r"^(?:(?:pls|please|just|now|also|then)\s+)*(?:try|feed|test)\s+(?:it\s+)?(?:with\s+|on\s+)?"
               r"(?:an?\s+|the\s+|some\s+)?(?:[\w.-]+\s+){0,3}?(?:sizes?|shapes?|inputs?|values?|rows?|cases?|"
               r"seq_?len\w*|lengths?|dims?|batch(?:es)?|zeros|nans?|infs?|denormals?|magnitudes?|logits|sequences?|seqs?|"
               r"tensors?|matri(?:x|ces)|arrays?|distributions?)\b"
               # "run the moe kernel with an adversarial router distribution", "test the binning on three distributions"
               r"|^(?:(?:pls|please|just|now|also|then)\s+)*(?:run|test|bench\w*|time|profile)\s+(?:it|the\s+[\w.-]+(?:\s+[\w.-]+)?)\s+"
               r"(?:with|on)\s+(?:an?\s+|the\s+|some\s+)?(?:[\w./-]+\s+){0,3}?(?:inputs?|values?|distributions?|routings?|data|"
               r"matri(?:x|ces)|sizes?|shapes?|images?|frames?|grids?|volumes?)\b"
               # "try M=1, 7, 127 ..." (an input's size; not "try num_stages=4", a setting)
               r"|^(?:(?:pls|please|just|now|also|then)\s+)*try\s+(?:(?:[mnkbhsdt]|seq_?len\w*|batch\w*|n_?rows|rows|cols|hidden\w*|"
               r"head_?dim\w*|dims?|len\w*|numel|size)\s*=\s*\d|\d+(?:\s*,\s*\d+){2,})"
               # ... "stress it with inf/nan/extreme values", "run some odd dims through it", "throw a
               # non-multiple-of-16 hidden size at the rmsnorm" (at the kernel, not "through the formatter")
               r"|^(?:(?:pls|please|just|now|also|then)\s+)*stress(?:[- ]test)?\s+(?:it|the\s+[\w.-]+)\s+with\s+"
               r"(?:[\w./-]+\s+){0,3}?(?:values?|inputs?|shapes?|sizes?|magnitudes?|cases?)\b"
               r"|^(?:(?:pls|please|just|now|also|then)\s+)*(?:run|throw|push|pass|feed)\s+(?:an?\s+|the\s+|some\s+|a\s+few\s+)?"
               r"(?:[\w./-]+\s+){0,3}?(?:sizes?|shapes?|inputs?|values?|cases?|seq_?len\w*|lengths?|dims?|dimensions?)\s+"
               r"(?:through|at|into)\s+(?:it|this|that|them|[\w.-]*_[\w.-]*|the\s+(?:[\w.-]+\s+)?(?:kernel|kernels|op|impl|"
               r"implementation|rmsnorm|layernorm|softmax|gemm|attention|attn|reduction|scan))\b")

#: An order to measure something and report it is a question in the steering sense ("pls dump the
#: resource usage", "run it twice and diff the outputs", "time FA3 on that shape for comparison",
#: "show me the per-scenario speedups", "ncu --set full on it, paste the warp state section") when it
#: names what is measured (a topic, a measurable) or asks for a comparison or a report; an order that
#: names only a tool, an artifact or a run ("profile it with ncu", "show me the SASS", "rerun the
#: full evaluation", "benchmark it again"), or changes something, is a directive.
_ORDER_OPEN = r"^(?:(?:please|pls|plz|just|now|then|and|also|quickly|first|so|sanity check|go(?!\s+ahead\b))[\s,:]+)*"
#: what "compute ..." must name to be a measurement ("compute flops/time", "compute the roofline bound";
#: not "compute the softmax in fp32")
_QUANTITY = (r"(?:t?flops|t?flop/s|bandwidth|bw|roofline|bound|ratio|error|time|bytes|occupancy|throughput|speedup|"
             r"percent(?:age)?|%|numbers?|count|fraction|utili[sz]ation|peak|gb/s|tb/s|arithmetic intensity|"
             r"intensity|waves?|efficiency|mfu|mbu|hfu|norm|residual|statistics|stats|histogram|distribution)\b")
#: verbs that measure by themselves
MEASURE_VERB = rx(_ORDER_OPEN + r"((?:re-?)?measure|re-?time|time|(?:re-?)?profile|(?:re-?)?benchmark|bench|dump|sweep|calc|"
                  r"prove\s+(?:it|that|this|me\s+wrong)(?=\s+(?:from|with|using|by|in|on)\b)|"
                  r"prove\s+(?:that\s+)?(?:the|your|this|these|it'?s|its|they'?re|we'?re|you'?re)\s|watch(?!\s+out\b)|monitor|"
                  r"perf\s+diff|(?:git\s+)?bisect(?!\s+(?:start|reset|good|bad)\b)|disassemble|"
                  r"make\s+(?:a\s+|the\s+)?(?:quick\s+)?(?:table|plot|chart|graph|histogram)\s+of(?!\s+contents)|"
                  r"(?:git\s+)?diff|hash|quantify|count(?!\s+on\b)|plot|compare(?!\s+notes\b)|repeat(?!\s+after\b)|validate|"
                  # a tool as the verb ("ncu --set full the gemm"; not "ncu locks clocks to base ...")
                  r"(?:ncu|nsys|cuobjdump|nvdisasm|compute-sanitizer)(?!(?:\s+-{1,2}[\w=.-]+)*\s+(?:is|was|has|does|did|can|will|would|should|"
                  r"might|may|isn't|doesn't|locks|serializes|serialises|flushes|replays|reports|shows|says|adds|uses|"
                  r"runs|measures|counts|gives|takes|makes|sets|resets|needs|wants|prints|outputs|emits|dumps|lists|generates|"
                  r"produces|supports|works|can't|cannot|won't)\b)|"
                  r"put\s+(?:[\w.+-]+\s+){1,5}?on\s+(?:a|the)\s+(?:roofline|scaling|timing|latency|throughput)\s+(?:chart|plot|graph)|"
                  r"put\s+(?:the\s+|their\s+|its\s+)?(?:[\w.-]+\s+){0,3}(?:numbers?|timings?|times|results?|figures?|"
                  r"speedups?|bandwidth|t?flops|throughput)\s+(?=next\s+to|beside|alongside)|"
                  r"(?:compute|calculate|work\s+out|estimate)(?=\s+(?:the\s+|an?\s+)?(?:[\w./-]+\s+){0,3}?(?:achieved\s+|effective\s+|"
                  r"theoretical\s+|ideal\s+|minimum\s+|max(?:imum)?\s+)?" + _QUANTITY + r")|"
                  r"a/b|ab[- ]test|ablate|cross[- ]?check|table(?=\s*:)|tabulate|"
                  # "instrument the kernel to count the padded blocks ..." (not "instrument the code and commit it")
                  r"instrument(?=\s+[^,.;]{1,60}?\s+to\s+(?:count|measure|time|record|log|track|find)\b)|"
                  r"break\s+(?:[\w.%-]+\s+){0,3}down)\b")
#: verbs that look at something: they measure when what they look at is measurable
_LOOK_VERB = rx(_ORDER_OPEN + r"(show(?:\s+(?:me|us))?|give\s+(?:me|us)|list|print|report|check|verify|confirm|test|paste|grep|"
                r"inspect|look\s+(?:for|at|into)|search\s+for|pull|grab|get\s+(?:me|us)|record|sample|"
                r"get(?=\s+(?:the|a|an)\s)(?![^,.;]*\b(?:up|down|to|under|below|above|over|passing|working|green|right|"
                r"fixed|done|going|into|merged|reviewed)\b)|fetch|collect|gather|query|"
                r"capture(?![^.;]{0,60}\b(?:in|into|as)\s+(?:a\s+|one\s+|the\s+|single\s+)*(?:cuda\s+)?graphs?\b)|"
                r"(?:get|take|read)(?=\s+[\w.]+__\w)|"  # a metric by its name: "get l1tex__data_bank_conflicts..."
                # "read torch.cuda.max_memory_allocated after the forward and report it" (not "read the docs")
                r"read(?=[^;]{0,120}?\b(?:and|then)\s+(?:report|print|paste|show|tell)\b)|"
                r"log(?=[^;]{0,120}?\b(?:per|each|every|chosen|selected|picked|which)\b|[^;]{0,120}?\band\s+(?:report|print|paste|show)\s+"
                r"(?:it|them|the\s+(?:value|number|peak|result)s?)\b(?![^;]*\bto\s+the\b)))\b(?!\s+(?:in|out|rid)\b)")
#: switching one change off to measure it is an ablation, not a change ("disable that opt by itself and
#: report the timing", "turn off the double buffering and measure")
_ABLATION = rx(_ORDER_OPEN + r"(?:disable|turn\s+off|switch\s+off|remove|drop|revert|undo|comment\s+out|back\s+out)\s+"
               r"[^,.;]{1,60}?\b(?:and|then)\s+(?:re-?)?(?:measure|time|bench\w*|profile|report|tell|compare|rerun|run)\b")
#: verbs that run or build: they measure only with a report or a comparison asked after them
#: a measurement redone with another method ("redo the bench with do_bench and a cold cache"; not "rerun
#: with the L2 flush on", "rerun the full benchmark")
_REDO_MEASUREMENT = rx(_ORDER_OPEN + r"(?:redo|rerun|re-run|repeat)\s+(?:the|your|that|this)\s+(?:bench(?:mark)?|timing|measurement|"
                       r"profile|numbers)\s+(?:with|using|under|on)\s+\S")
_RUN_VERB = rx(_ORDER_OPEN + r"(run|rerun|re-run|redo|throw|do|build|rebuild|compile|launch|execute|try|feed|loop(?!\s+in\b)|"
               r"(?:git\s+)?checkout|check\s+out|(?:git\s+)?stash|"
               r"generate)\b")
#: running a checker is a measurement ("run compute-sanitizer on it"), and so is running the check on
#: named inputs ("run correctness on shapes that aren't tile aligned"); "run the tests" is an order
_RUN_CHECK = rx(_ORDER_OPEN + r"(?:put\s+[^,.;]{1,60}?\s+through\s+(?:compute-sanitizer|(?:the\s+)?sanitizer|memcheck|racecheck|initcheck|"
                r"synccheck|(?:the\s+)?(?:evaluator|reference\s+check|correctness\s+tests?))\b|"
                r"(?:run|rerun|re-run)\s+(?:(?:compute-sanitizer|cuda-memcheck|sanitizer|memcheck|racecheck|"
                r"initcheck|synccheck)\b|(?:the\s+)?(?:[\w.-]+\s+){0,2}?(?:correctness|checks?|tests?|eval\w*|reference check)\s+"
                r"(?:on|with|for|against)\s+(?:[\w.-]+\s+){0,3}?(?:shapes?|sizes?|inputs?|values?|cases?|seq_?len\w*|"
                r"lengths?|dims?|rows?|dtypes?|scenarios?|magnitudes?)\b))")
#: a setting said before the order: "for the fp8 kernel show me ...", "before calling it finished, show ..."
_ORDER_SETTING = rx(r"^(?:[^,?]{3,120},\s+(?=(?:please|pls|plz)\s+\w+\s+\w)|"
                    r"(?:for|on|in|at|across)\s+[^,]{1,80}(?:,\s+[^,]{1,30}){1,5},\s+(?=(?:compute|measure|time|profile|show|list|"
                    r"print|report|check|verify|run|rerun|get|pull|dump|count|compare)\b)|"
                    r"(?:before|after|once|when|while|for|on|in|at|across)\s+[^,]{1,100},\s+|"
                    r"(?:for|on|in|at|across)\s+(?:(?!(?:we|i|you|u|they|he|she|it)\b)[\w.%/=-]+\s+){1,6}?"
                    r"(?=(?:show|list|print|report|check|verify|confirm|measure|time|profile|dump|diff|count|"
                    r"compare|pull|grab|get|compute|run|rerun)\b))")
_THEN_REPORT = rx(r"(?:\b(?:and|then|,)|\s&)\s+(?:(?:at|after|for|on)\s+(?:every|each)\s+[\w-]+\s+(?=report\b))?(?:report(?!\s+(?:back\s+)?(?:when|once|after|if|to)\b)|tell|list|print|paste|post|show|give|look\s+(?:at|for)|plot|chart|graph|tabulate|"
                  r"make\s+(?:a\s+|the\s+)?(?:quick\s+)?(?:table|plot|chart|graph)\b(?!\s+(?:of\s+contents|component|view|widget))|"
                  r"share\s+(?:it|them|the\s+(?:numbers?|results?|plot|chart|table))\s*[.!]*$|send(?:\s+(?:me|us))?(?=\s+(?:the|it|them|over))|"
                  # a metric pulled, not a branch ("... and pull l1tex__...", not "... and pull the latest")
                  r"(?:pull|grab|extract|collect)(?=\s+(?:the\s+)?(?:[\w.]*__\w|numbers?\b|metrics?\b|counters?\b|stats\b|"
                  r"values?\b|sections?\b))|"
                  r"put\s+it\s+next\s+to)\b")
_THEN_MEASURE = rx(r"(?:\b(?:and|then|to|,)|\s&)\s+(?:diff|compare|confirm|verify|check|count|time|measure|hash|bench\w*|profile)\b|"
                   r"\bnext\s+to\s+(?:ours|yours|mine|it|the\s+(?:seed|baseline|reference|old|new))\b|"
                   # "... and tell me the dominant one" (not "... and tell me when it's done")
                   r"\b(?:and|then|,)\s+(?:tell|let)\s+(?:me|us)\s+(?:know\s+)?(?!when\b|once\b|if\s+it\s+(?:finishes|fails)\b)\w|"
                   r"\b(?:vs\.?|versus)\s+\w|\bcompared\s+(?:to|with|against)\s+\w|\b(?:twice|" + REPEATS + r"|(?:\d+|three|five|ten|twenty|fifty|a\s+hundred|hundred)\s*x|"
                   r"for comparison|side by side|against (?:the )?(?:reference|torch|numpy|seed|baseline))\b|"
                   r"\bso\s+(?:that\s+)?(?:we|i|you|u)\s+(?:can\s+)?(?:compare|see|know)\b|"
                   r"\b(?:and|then)\s+(?:see|check)\s+(?:whether|if|how)\b|"
                   r"\b(?:and|then|,)\s+see\s+what\s+(?:comes\s+out|happens|breaks|it\s+(?:does|gives|returns))\b|"
                   r"\b(?:and|then)\s+(?:re-?)?run\s+(?:the\s+)?(?:check|checks|tests?|correctness|eval\w*|reference)\b")
#: the last step of an order, a value reported ("..., and report peak allocated memory")
#: an output checked, its outcome reported: "(report) whether the row sets agree", "whether the indices
#: remain ascending" (not "whether it finished", "whether CI passes")
_WHETHER_CHECK = rx(r"(?:^|\b)(?:(?:both|all)\s+[^.;]{1,60}?\s+and\s+)?(?:whether|if)\s+(?:[\w'-]+\s+){1,6}?(?:agree|agrees|match|matches|"
                    r"differ|differs|remain|remains|stay|stays|are\s+(?:equal|identical|the\s+same|sorted|stable)|"
                    r"is\s+(?:equal|identical|the\s+same|sorted|stable|deterministic)|come\s+out\s+(?:right|the\s+same|equal))\b")
_REPORT_TAIL = rx(r"(?:,\s*(?:and\s+|then\s+|&\s+)*|\s(?:and\s+|then\s+|&\s+)+)(?:report|print|paste|post|give\s+(?:me|us)|tell\s+(?:me|us)|show\s+(?:me|us))[,:]?\s+"
                  r"(?!(?:back|to|when|once|it\s+to|them\s+to)\b)([^.;]{3,}?)[.!]*$")
_ARTIFACT_ONLY = rx(r"^(?:(?:please|pls|plz|just|now|then|and|also)\s+)*(?:show|print|dump|list|paste)(?:\s+(?:me|us))?\s+"
                    r"(?:the\s+)?(?:sass|ptx|code|diff|logs?|summary|report|output|file|results?)\b"
                    r"(?:\s+(?:for|of|in)\s+(?!(?:and|then)\b)[\w.-]+(?:\s+(?!(?:and|then)\b)[\w.-]+){0,3})?[.!]*$")
#: A verb that changes the code or acts on files, where a verb stands (first, or after "and", "then",
#: a comma): an order with one is a directive whatever else it says ("time it and commit"; not "a
#: dummy buffer write before every call").
CHANGE_VERB = rx(r"(?:^|\b(?:and|then|&|also|to)\s+|,\s*)(update|fix|add|write|implement|refactor|rename|commit|"
                 r"push|merge|remove|delete|revert|undo|change|create|install|document|edit|modify|replace|"
                 r"switch|rewrite|port|clean|publish|deploy|file|draft|use|set|make|save|store|keep|upload|send|"
                 r"post|attach|open|close|record|note)\b")
#: ... except a report posted back to the steerer and a measuring tool used ("... and post
#: min/median/max", "..., use the sanitizer"): not changes
_NOT_A_CHANGE = rx(r"(?:(?<=load and )|(?<=loads and )|(?<=load & ))stores?\b|"  # "every global load and store"
                   # "record the step time over 500 steps and report p99": recorded to be reported (not "record the fix
                   # in the changelog")
                   r"record\b(?=[^;]{0,120}?\b(?:and|then)\s+(?:report|print|paste|show|tell)\b)|"
                   r"(?:(?<=read and )|(?<=reads and )|(?<=read & ))writes?\b|"  # "the dram read and write bytes"
                   # "set CUDA_LAUNCH_BLOCKING=1, rerun ...": a tool made to print or serialise (not "set NUM_WARPS=8")
                   r"\bset\s+(?:the\s+)?[a-z0-9_]*(?:print|debug|log|logs|verbose|trace|launch_blocking)[a-z0-9_]*\s*=\s*\S+|"
                   # "push 60 s of noise thru ur stft": data through the kernel (not "push the fix thru review")
                   r"\bpush\s+[^,;&]{1,60}?\s+(?:through|thru)\s+(?:ur|your|our|the|it|this|that|them)\b(?!\s+(?:review|ci|pipeline|"
                   r"queue|branch|repo|release)\b)|"
                   r"\bpost\s+(?:it|them)(?:\s+(?:here|back|next\s+to\s+[^.;]{1,40}))?\s*[.!]*$|"
                   r"\bmake\s+(?:a\s+|the\s+)?(?:quick\s+)?(?:(?:table|plot|chart|graph)\s*(?:[.!]*$|(?=,|\s+(?:and|with|of(?!\s+contents)|"
                   r"from|for\s+(?:each|every|all)|per)\b))|histogram\s+of(?!\s+contents))|"
                   # "make sure the border pixels are right" (a check; not "make sure to push", "make sure you commit")
                   r"\bmake\s+sure\s+(?!(?:to|you|u|we|i|they)\b)(?:that\s+)?(?:the\s+|it|they|nothing|no|all|every|each|[\w.-]+\s+(?:is|are|does|do))"
                   r"[^.;]{0,80}?\b(?:right|correct|match\w*|ok|okay|fine|identical|the\s+same|intact|valid|sane|pass\w*|"
                   r"out\s+of\s+bounds|in\s+bounds|nan|inf)\b|"
                   r"\brecord\s+(?:the\s+)?(?:[\w.-]+\s+){0,2}?(?:clocks?|power|temps?|temperatures?|utili[sz]ation|timings?|times|"
                   r"bandwidth|throughput|memory|occupancy|counters?|metrics?|stats|latenc(?:y|ies))\b(?![^.;]*\b(?:in|to|into)\s+(?:the\s+)?"
                   r"(?:readme|docs?|changelog|notes?|wiki|log\s*file)\b)|"
                   r"\bpost\s+(?:the\s+|all\s+(?:the\s+)?|an?\s+)?(?:[\w/-]+\s+){0,2}?(?:numbers?|results?|output|min|max|median|mean|timings?|"
                   r"times|figures?|stats|samples|values|table|breakdown|counts?)\b(?![^.;]*\b(?:in|on|to|into)\s+(?:the\s+|our\s+)?"
                   r"(?:slack|channel|thread|pr|wiki|readme|docs?|issue|ticket)\b)|"
                   r"\buse\s+(?:the\s+|a\s+)?(?:compute-sanitizer|sanitizer|memcheck|racecheck|ncu|nsys|nsight(?:\s+\w+)?|"
                   r"profiler|cuobjdump|cuda\s+events|events)\b(?![^.;]*\b(?:and|then)\s+(?:fix|change|update|commit)\b)|"
                   r"\bsend\s+(?:me\s+|us\s+|over\s+)?(?:the\s+)?(?:timeline|trace|numbers?|results?|output|profile|report|table|"
                   r"timings?|values?|counts?|stats|metrics?)\b(?![^.;]*\b(?:to|in|on)\s+(?:the\s+)?(?:team|channel|slack|thread|email|everyone|them)\b)")


#: how a quantity moves, reported ("report its drift next to the reference's", "its trend over the run")
_COURSE = rx(r"\b(?:its|their|the)\s+(?:trend|drift|history|evolution|growth|decay)\b")


def changes(sentence: str) -> bool:
    """Whether a sentence (lower case, fillers stripped) orders a change (CHANGE_VERB, not _NOT_A_CHANGE;
    an aside in parentheses aside)."""
    sentence = _ASIDE.sub(" ", sentence)
    return any(not _NOT_A_CHANGE.match(sentence, m.start(1)) for m in CHANGE_VERB.finditer(sentence))
_BREAKDOWN_OR_DIFF = rx(r"^(?:break\b|(?:git\s+)?(?:diff|compare)\s+(?:[\w.-]+\s+){0,4}?(?:against|vs\.?|versus|"
                        r"between|with|since|to)\b)")
#: a doubt about a result or its scope: a rerun asked to challenge a claim ("run it again, i don't trust
#: a single sample", "rerun the suite, not only the shape you tuned", "rerun the timing before claiming it")
_DOUBT = rx(r"\b(?:don'?t|dont|do\s+not|can'?t)\s+(?:buy|believe)\s+(?:that|it|this|your|the\s+claim)\b(?!\s*[,.;])|"
            r"\b(?:don'?t|dont|do\s+not|can'?t)\s+(?:trust|believe|buy)\s+(?:a|the|that|this|one|your|these|those|"
            r"single|just\s+one)?\s*(?:single\s+|one\s+)?(?:samples?|numbers?|results?|measurements?|timings?|runs?|"
            r"wins?|figures?|speedups?|benchmarks?|bench|data\s*points?)\b|"
            r"\bnot\s+(?:just|only)\s+(?:the\s+|ur\s+|your\s+)?(?:one|that|this|new|last|\d+|a\s+few|some|smoke)?\s*(?:[\w.-]+\s+)?"
            r"(?:shapes?|cases?|scenarios?|configs?|sizes?|inputs?|kernels?|files?|tests?)\b|"
            # the agent's claim quoted back, what it only did
            r"^(?:you|u)\s+(?:claim|claimed|claims|said|say|says|keep\s+saying)\b|^(?:you'?re|you\s+are|ur)\s+(?:saying|claiming)\b|"
            r"\bi\s+(?:don'?t|do\s+not)\s+think\s+(?:it'?s|that'?s|that|it|this)\b(?![^.;,]*\b(?:worth|needed|necessary)\b)|"
            r"\b(?:only|just)\s+(?:got\s+|been\s+|was\s+|were\s+)?(?:tested|checked|timed|measured|benchmarked|profiled|validated)\s+"
            r"(?:on|at|with|for|against)\b|"
            r"\bnot\s+buying\s+(?:it|that)\b|\b(?:you|u)\s+only\s+(?:ran|tested|checked|timed|"
            r"measured|profiled|tried)\b|"
            r"\bbefore\s+(?:claiming|calling|declaring|saying|reporting|we\s+call|you\s+call|we\s+claim|you\s+claim)\b")
#: a check ordered in a word or two, evidence for a doubt said before it
_BARE_CHECK = rx(_ORDER_OPEN + r"(?:check|verify|prove\s+it|show\s+me|test\s+it|measure\s+it|profile\s+it)[\s.!]*$")
#: an aside in parentheses ("(int8 is fine to keep mem down)") says nothing about the order
_ASIDE = rx(r"\([^()]{0,120}\)")
#: checks whose result a report shows ("run pytest ... and paste the tail")
_CHECKS = rx(r"\b(?:pytest|tests?|test\s+suite|suite|evaluator|eval\w*|grader|correctness|checks?(?!\s+out))\b")
#: an order not to measure ("..., don't compare them directly")
_DONT_MEASURE = rx(r"\b(?:don'?t|dont|do\s+not)\s+(?:compare|measure|time|bench\w*|profile|run|rerun|report|print|show)\b")
#: a standing instruction ("report medians from here on"): how to work, not a measurement asked now
_STANDING = rx(r"\b(?:from (?:now|here) on|going forward|from now|in (?:the )?future|"
               r"(?:every|each) time\s+(?:you|we|i|u|it|the|a|there|something|anything|someone)\b|"
               r"always|never|whenever)\b")
#: tools and artifacts: naming them is not naming what is measured ("profile it with ncu")
_TOOL_WORDS = rx(r"\b(?:ncu|nsys|nsight(?:\s+(?:compute|systems))?|profiler?|profile|sass|ptx|report|summary)\b")


#: where a product change lands ("log the fix in the changelog", "show it in the dashboard")
_PRODUCT_PLACE = rx(r"\b(?:in|on|to|into)\s+(?:the\s+|our\s+)?(?:ui|dashboard|page|app|screen|readme|docs?|"
                    r"documentation|changelog|website|site|help text|status\.md|issue|ticket|linear|jira)\b")
#: shown to someone else than the steerer: a feature, not a report ("show the users the occupancy")
_TO_SOMEONE = rx(_ORDER_OPEN + r"(?:show|give|report)\s+(?:the\s+)?(?:users?|them|people|customers|everyone|"
                 r"the\s+team|others)\b")


def checks_run(sentence: str) -> bool:
    """Whether a sentence (lower case) runs a checker or the checks on named inputs ("put it through
    compute-sanitizer", "run correctness on shapes that aren't tile aligned")."""
    return _RUN_CHECK.match(strip_filler(sentence)) is not None


def doubts(sentence: str) -> bool:
    """Whether a sentence doubts a result or a claim ("i don't trust a single sample", "i dont buy that ...")."""
    return _DOUBT.search(sentence.lower()) is not None


def measurement_order(sentence: str, doubted: bool = False) -> bool:
    """Whether one sentence orders a measurement to be made and reported (not a change): the asking of
    a message that has no interrogative sentence ("pls dump the resource usage, i suspect spills").
    `doubted`: another sentence of the message doubts a claim ("i don't buy that launch overhead is
    negligible - show me the timeline"), so an order to look at something is the evidence asked for."""
    core = _ASIDE.sub(" ", strip_filler(sentence.rstrip(" \"')]}*_").lower()))
    doubted = doubted or _DOUBT.search(core) is not None
    setting = _ORDER_SETTING.match(core)
    if setting:
        core = core[setting.end():]
    if len(core.split()) > 40 or _ARTIFACT_ONLY.match(core) or _STANDING.search(core) or _DONT_MEASURE.search(core):
        return False
    if _ABLATION.match(core):
        return True
    if changes(core) or _PRODUCT_PLACE.search(core) or _TO_SOMEONE.match(core):
        return False
    if _RUN_CHECK.match(core) or TRY_INPUT.match(core) or _REDO_MEASUREMENT.match(core):
        return True
    if doubted and _BARE_CHECK.match(core):
        return True  # "you said unrolling by 8 is free. i'd bet it's spilling now. check"
    m = MEASURE_VERB.match(core) or _LOOK_VERB.match(core) or _RUN_VERB.match(core)
    if m is None:
        # steps that change nothing, then a measurable reported: "reset the peak stats, run one
        # step, and report peak memory next to eager"
        tail = _REPORT_TAIL.search(core)
        return tail is not None and bool(MEASURABLE.search(tail.group(1)) or _COURSE.search(tail.group(1)) or topics(tail.group(1))
                                         or _WHETHER_CHECK.match(tail.group(1)))
    if not CONTENT.search(core, m.end()):  # a bare "git diff", "profile": an order
        return False
    if _THEN_MEASURE.search(core, m.end()) or doubted or m.group(1).startswith("prove"):
        return True  # ("prove the padding did something": evidence asked for)
    if m.re is MEASURE_VERB and _BREAKDOWN_OR_DIFF.match(m.group(1) + core[m.end():]):
        return True  # "break the 1.34x down by input config", "git diff against the last green commit"
    if m.re is MEASURE_VERB and _THEN_REPORT.search(core, m.end()):
        return True  # "nsys profile it and send the timeline", "profile ... with ncu and show me the summary"
    rest = _TOOL_WORDS.sub(" ", core[m.end():])
    measured = bool(topics(core) or MEASURABLE.search(rest))
    if m.re is _RUN_VERB:  # "run the evaluator end to end and paste the output": a report of a measurement
        return (measured or _CHECKS.search(core) is not None or _WHETHER_CHECK.search(core, m.end()) is not None) \
            and _THEN_REPORT.search(core, m.end()) is not None
    return measured
