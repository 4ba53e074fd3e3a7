"""What Slurm says, read right: squeue, scontrol and slurmstepd's last words as slurm-wlm 22.05.8
printed them on this machine type (recorded from the test cluster), sacct in its documented
`--parsable2` shape; the batch script; options from the config file."""
from __future__ import annotations

import json
import subprocess

import pytest

from agent.launch import LaunchError
from agent.launchers.slurm import SlurmOptions, batch_script, parse_submitted
from agent.launchers.slurm_jobs import (SlurmQuery, expand_ids, parse_last_words, parse_sacct, parse_scontrol,
                                        parse_squeue)
from sessions.layout import SessionPaths

SQUEUE = """2|CANCELLED|None|
1|COMPLETED|None|vm
3_[2-3]|PENDING|Resources|
3_0|RUNNING|None|vm
7|COMPLETING|TimeLimit|vm
"""

SCONTROL = ("JobId=5 ArrayJobId=3 ArrayTaskId=1 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label=N/A "
            "Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=CANCELLED Reason=None "
            "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15 RunTime=00:00:05 "
            "TimeLimit=365-00:00:00 NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=1 TRES=cpu=1,node=1,billing=1 "
            "Nodes=vm CPU_IDs=0 Mem=0 GRES=gpu:1(IDX:1) TresPerJob=gres:gpu:1\n"
            "JobId=7 JobName=wrap JobState=TIMEOUT Reason=TimeLimit Dependency=(null) ExitCode=0:9 "
            "NodeList=vm\n")

LAST_WORDS = ("slurmstepd-vm: error: *** JOB 7 ON vm CANCELLED AT 2026-12-01T12:12:02 DUE TO TIME LIMIT ***\n"
              "got TERM\n")


def test_squeue_lines_with_folded_pending_array_elements():
    jobs = parse_squeue(SQUEUE)
    assert jobs["3_2"].state == jobs["3_3"].state == "PENDING" and jobs["3_2"].reason == "Resources"
    assert jobs["3_0"].node == "vm" and jobs["3_0"].active
    assert jobs["7"].state == "COMPLETING" and jobs["7"].reason == "TimeLimit" and jobs["7"].active
    assert jobs["2"].node is None and not jobs["2"].active
    assert expand_ids("812_[0-2,5%2]") == ["812_0", "812_1", "812_2", "812_5"]


def test_scontrol_names_array_elements_by_their_array_id_and_reads_gpus_and_exit_codes():
    jobs = parse_scontrol(SCONTROL)
    assert set(jobs) == {"3_1", "7"}
    assert jobs["3_1"].state == "CANCELLED" and jobs["3_1"].exit_code == "0:15" and jobs["3_1"].gpus == "1"
    assert jobs["7"].state == "TIMEOUT" and jobs["7"].reason == "TimeLimit"


def test_sacct_says_who_cancelled():
    jobs = parse_sacct("812_3|CANCELLED by 1002|None|0:15|gpu7\n812_[4-5]|PENDING|Priority|0:0|None assigned\n")
    assert jobs["812_3"].state == "CANCELLED" and jobs["812_3"].reason == "by 1002" and jobs["812_3"].node == "gpu7"
    assert jobs["812_5"].state == "PENDING"


def test_slurmstepds_last_words_outlive_the_schedulers_memory():
    info = parse_last_words("7", LAST_WORDS)
    assert info.state == "TIMEOUT" and "time limit" in info.reason and info.node == "vm"
    assert parse_last_words("9", "*** JOB 9 ON n3 CANCELLED AT 2026-12-01T10:00:00 ***").state == "CANCELLED"
    assert parse_last_words("9", "*** JOB 9 ON n3 CANCELLED AT 2026-12-01T10:00:00 DUE TO NODE FAILURE ***"
                            ).state == "NODE_FAIL"
    assert parse_last_words("9", "all fine\n") is None


def test_the_query_asks_sacct_first_and_falls_back_when_accounting_is_off(monkeypatch):
    calls = []

    def run(argv):
        calls.append(argv[0])
        if argv[0] == "sacct":
            return subprocess.CompletedProcess(argv, 1, "", "Slurm accounting storage is disabled\n")
        if argv[0] == "squeue":
            return subprocess.CompletedProcess(argv, 0, "3_0|RUNNING|None|vm\n", "")
        return subprocess.CompletedProcess(argv, 1, "", "slurm_load_jobs error: Invalid job id specified\n")

    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}")
    q = SlurmQuery(run=run)
    assert q.jobs(["3_0", "99"]).keys() == {"3_0"}  # 99: forgotten (past MinJobAge)
    assert calls == ["sacct", "squeue"]  # what squeue does not list, scontrol does not know either
    calls.clear()
    q.jobs(["3_0"])
    assert calls == ["squeue"]  # no accounting: sacct is not asked again


def test_a_finished_job_is_asked_once_and_a_forgotten_one_is_read_from_its_output(tmp_path, monkeypatch):
    from agent.launchers.slurm import SlurmHandle
    from sessions.layout import write_launch

    sp = SessionPaths(tmp_path / "s")
    sp.root.mkdir()
    record = {"launcher": "slurm", "jobs": [{"job_id": "7"}]}
    write_launch(sp, record)
    (sp.root / "slurm.out").write_text(LAST_WORDS)
    h = SlurmHandle(sp, "7", record)
    h.learn(None)  # the scheduler no longer knows it
    assert h.describe().state == "TIMEOUT" and h.describe().source == "output"
    assert json.loads(sp.launch.read_text())["jobs"][0]["final"]["state"] == "TIMEOUT"  # kept
    h2 = SlurmHandle(sp, "7", json.loads(sp.launch.read_text()))
    monkeypatch.setattr("agent.launchers.slurm.SlurmQuery", lambda: pytest.fail("asked the scheduler again"))
    assert h2.alive() is False and h2.describe().state == "TIMEOUT"


def test_the_batch_script_runs_session_i_for_array_task_i(tmp_path):
    a, b = SessionPaths(tmp_path / "b-0"), SessionPaths(tmp_path / "b 1")
    script = batch_script([(a, ["py", "-m", "console", "run", "t", "--session", str(a.root)]),
                           (b, ["py", "-m", "console", "run", "t", "--session", str(b.root)])],
                          setup=("module load cuda",))
    assert "module load cuda" in script
    for i, s in enumerate((a, b)):
        (s.root).mkdir()
        fake = tmp_path / "py"
        fake.write_text("#!/bin/bash\necho ran \"$@\"\nexit 130\n")
        fake.chmod(0o755)
        r = subprocess.run(["bash", "-c", script.replace("cmd=(py ", f"cmd=({fake} ")],
                           env={"SLURM_ARRAY_TASK_ID": str(i), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
        assert r.returncode == 0  # 130 (stopped) is a session the runner ended itself
        assert f"--session {s.root}" in (s.root / "runner.log").read_text()
    r = subprocess.run(["bash", "-c", script], env={"SLURM_ARRAY_TASK_ID": "5", "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no session for array task 5" in r.stderr


def test_slurm_options_from_the_config_file_and_flags():
    base = SlurmOptions.from_mapping({"partition": "gpu", "gpus": 1, "time": "4:00:00", "options": ["--qos=low"],
                                      "setup": "module load cuda"})
    both = base.merged(gpus="2", partition=None, account="proj", options=["--exclusive"])
    assert both.sbatch_args() == ["--gpus=2", "--partition=gpu", "--time=4:00:00", "--account=proj", "--qos=low",
                                  "--exclusive"]
    assert both.setup == ("module load cuda",)
    with pytest.raises(LaunchError, match="unknown setting 'gpu'") as exc:
        SlurmOptions.from_mapping({"gpu": 1}, "agent.yaml: slurm")
    assert exc.value.exit_code == 2
    with pytest.raises(LaunchError, match="options: expected a list"):
        SlurmOptions.from_mapping({"options": 3})
    assert parse_submitted("812;cluster1\n") == "812"
    with pytest.raises(LaunchError):
        parse_submitted("sbatch: error: Batch job submission failed")
