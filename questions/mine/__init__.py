"""The miner: steering logs, sessions and transcripts into question-bank candidates.

    from questions.mine import mine, MineConfig, render_report, save_bank

    result = mine(["~/.kernelseek/steering.jsonl", "sessions/run-3"], bank=load_bank())
    result.messages          # every human message: .label (question | directive | information | other),
                             # .kinds (decision points open), .metrics, .outcome (what followed)
    result.clusters          # QuestionCluster: .text, .stats, .triggers, .layers, .arch, .match
    save_bank(result, "mined.yaml", reference_items=list(bank))
    render_report(result)    # Markdown

Modules, by meaning: `extract` (reading logs), `classify` (question / directive / information; what asks in
`asking`, what hands over in `information`, orders that measure in `orders`),
`normalise` (specifics out, stems and synonyms in), `cluster` (near-duplicates), `outcome`
(what followed), `miner` (the pipeline), `write` (bank items and merging), `report`.
Imports numpy (clustering) and pyyaml (writing); see docs/mining.md.
"""
from questions.mine.classify import LABELS, Classification, classify
from questions.mine.cluster import ClusterConfig
from questions.mine.extract import LogRead, Message, MineError, read_log, read_logs
from questions.mine.miner import MineConfig, MineResult, QuestionCluster, forget, mine, mine_messages
from questions.mine.normalise import generalise, terms
from questions.mine.outcome import Outcome, cluster_stats
from questions.mine.report import render as render_report
from questions.mine.write import MergeError, bank_yaml, candidate_item, merge_bank_text, save_bank

__all__ = [
    "LABELS", "Classification", "classify", "ClusterConfig", "LogRead", "Message", "MineError", "read_log",
    "read_logs", "MineConfig", "MineResult", "QuestionCluster", "forget", "mine", "mine_messages", "generalise", "terms",
    "Outcome", "cluster_stats", "render_report", "MergeError", "bank_yaml", "candidate_item", "merge_bank_text",
    "save_bank",
]
