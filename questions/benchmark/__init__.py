"""The labelled benchmark of decision points on real transcripts (see docs/questions.md).

`labels/` holds one hand-labelled YAML file per shared transcript and SPLIT.md, the tune/score
split; `labels_io` reads them, `score` matches decision points with them, and `run` (used by
`kernelseek detect --score`) puts it together and prints the report.
"""
