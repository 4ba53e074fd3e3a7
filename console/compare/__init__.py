"""`kernelseek compare`: arms of sessions against each other, on re-evaluated final kernels.

gather.py finds each session's arm and facts and re-evaluates its final kernel; stats.py has the
medians and bootstrap intervals; report.py turns them into JSON, a table and Markdown; svg.py
draws the plot of geomean over time per arm without any plotting library.
"""
