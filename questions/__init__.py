"""The question bank, the decision-point detectors, ranking and the miner."""
