"""Small parts of the fleet: network file systems, the sparkline, the statistics and the plot."""
from __future__ import annotations

import os
import threading
import time
import xml.etree.ElementTree as ET

import pytest

from budgets import within
from console.compare.stats import median_ci, median_difference_ci, verdict
from console.compare.svg import Chart, Series, nice_ticks, render_svg
from console.sessions_view import sparkline
from sessions.follow import LogFollower, filesystem_type, on_network_fs

MOUNTS = """\
/dev/nvme0n1p2 / ext4 rw,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
nfs01:/export/home /home nfs4 rw,relatime,vers=4.2 0 0
10.0.0.5@o2ib:/scratch /scratch lustre rw,flock,lazystatfs 0 0
/dev/nvme1n1 /scratch/local xfs rw 0 0
gpfs1 /gpfs gpfs rw 0 0
/dev/sdb1 /mnt/my\\040disk ext4 rw 0 0
"""


@pytest.mark.parametrize("path, kind, network", [
    ("/home/ann/.local/share/kernelseek/sessions/s1/events.jsonl", "nfs4", True),
    ("/scratch/ann/ks", "lustre", True),
    ("/scratch/local/ks", "xfs", False),  # the longest mount point wins
    ("/gpfs/proj", "gpfs", True),
    ("/mnt/my disk/s", "ext4", False),
    ("/tmp/x", "ext4", False),
])
def test_the_file_system_under_a_session_is_found_in_the_mount_table(path, kind, network):
    assert filesystem_type(path, MOUNTS) == kind
    assert on_network_fs(path, MOUNTS) is network


def follow_delays(tmp_path, monkeypatch) -> list[float]:
    """Seconds from each of five appends to the follower seeing it, on a 'network' file system."""
    monkeypatch.setattr("sessions.follow.on_network_fs", lambda path, mounts=None: True)
    monkeypatch.delenv("KERNELSEEK_FORCE_POLLING", raising=False)
    from sessions.log import SessionWriter

    log = tmp_path / "events.jsonl"
    follower = LogFollower(log)
    assert follower.force_polling and follower.mode == "polling"
    stop = threading.Event()
    seen: list[tuple[float, dict]] = []

    def follow():
        for batch in follower.follow(stop):
            seen.extend((time.monotonic(), e) for e in batch)

    t = threading.Thread(target=follow, daemon=True)
    t.start()
    with SessionWriter(log) as w:
        delays = []
        for i in range(5):
            t0 = time.monotonic()
            w.append("runner_note", text=f"n{i}")
            while len(seen) <= i:
                time.sleep(0.005)
                assert time.monotonic() - t0 < 10.0
            delays.append(seen[i][0] - t0)
    stop.set()
    t.join(2)
    return delays


def test_a_log_on_a_network_file_system_is_followed_by_polling(tmp_path, monkeypatch):
    assert len(follow_delays(tmp_path, monkeypatch)) == 5


@pytest.mark.bench
def test_polling_sees_an_append_within_a_second(tmp_path, monkeypatch):
    assert max(follow_delays(tmp_path, monkeypatch)) <= within(1.0)


def test_the_sparkline_marks_what_meets_the_goal_and_gaps_where_an_evaluation_did_not_count():
    cells = sparkline((0.9, None, 1.1, 1.5, 2.2), 2.0, 12)
    assert [c for c, _ in cells][1] == "·" and cells[1][1] is None
    assert [met for _, met in cells] == [False, None, False, False, True]
    assert cells[-1][0] == "█" and len(sparkline(tuple(range(1, 40)), None, 12)) == 12
    assert sparkline((), 2.0, 12) == []


def test_a_median_interval_and_a_difference_that_excludes_zero_or_does_not():
    est = median_ci([1.0, 1.2, 1.1, 0.9, 1.05])
    assert est.value == pytest.approx(1.05) and est.lo <= est.value <= est.hi
    assert median_ci([]).value is None
    big = median_difference_ci([1.0, 1.02, 0.98, 1.01], [2.0, 2.1, 1.9, 2.05])
    assert big.value == pytest.approx(2.025 - 1.005) and big.lo > 0 and verdict(big) == "higher"
    same = median_difference_ci([1.0, 1.3, 0.8], [1.1, 0.7, 1.2])
    assert same.lo < 0 < same.hi and verdict(same).startswith("ambiguous")
    # reproducible: a fixed seed
    assert median_ci([1, 2, 3, 4]).lo == median_ci([1, 2, 3, 4]).lo


def test_the_plot_is_an_svg_with_a_line_per_session_a_legend_per_arm_and_escaped_labels():
    chart = Chart("t <b>", "hours", "geomean", goal=2.0, series=[
        Series("s0", [(0.0, 1.0), (0.5, 1.8), (1.0, 2.4)], group="autopilot"),
        Series("s1", [(0.0, 1.0), (1.2, 1.1)], group="none & co"),
        Series("s2", [(0.2, 1.3)], group="none & co"),
    ])
    svg = ET.fromstring(render_svg(chart))
    tags = [e.tag.rsplit("}", 1)[-1] for e in svg.iter()]
    assert tags.count("polyline") == 3 and tags.count("circle") == 1
    texts = [e.text for e in svg.iter() if e.tag.endswith("text")]
    assert "t <b>" in texts and "none & co" in texts and "goal 2×" in texts
    assert nice_ticks(0.93, 2.41)[0] <= 0.93 and nice_ticks(0.93, 2.41)[-1] >= 2.41
