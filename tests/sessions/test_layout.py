"""Session directories: create, resolve, list with status."""
from __future__ import annotations

import pytest

from sessions.layout import (create_session, kernelseek_home, list_sessions, resolve_session,
                             sessions_root)
from sessions.digest import session_state
from sessions.log import SessionError, SessionWriter


def test_home_and_root_follow_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELSEEK_HOME", str(tmp_path / "ks"))
    assert kernelseek_home() == tmp_path / "ks"
    assert sessions_root() == tmp_path / "ks" / "sessions"
    assert sessions_root(tmp_path / "other") == tmp_path / "other"
    monkeypatch.delenv("KERNELSEEK_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert sessions_root() == tmp_path / "xdg" / "kernelseek" / "sessions"


def test_create_resolve_and_list(tmp_path):
    root = tmp_path / "sessions"
    a = create_session(root, task="softmax-cpu")
    assert a.workspace.is_dir() and a.evals.is_dir() and a.root.parent == root
    assert a.next_eval_report().name == "0001.json"
    with SessionWriter(a.events) as w:
        w.append("session_start", task="softmax-cpu", model="claude-x", agent="kernelseek")
        w.append("eval_result", summary={"geomean": 1.31, "all_correct": True, "best_geomean": 1.31})
        w.append("session_end", reason="goal_met")
    b = create_session(root, task="attention-cpu")
    w = SessionWriter(b.events)
    w.append("session_start", task="attention-cpu")
    c = create_session(path=tmp_path / "elsewhere")
    with SessionWriter(c.events) as w2:
        w2.append("session_start", task="rmsnorm-cuda")

    assert resolve_session(a.root).root == a.root
    assert resolve_session(a.events).root == a.root
    assert resolve_session(a.name, root).root == a.root
    with pytest.raises(SessionError, match="no session"):
        resolve_session("nope", root)
    with pytest.raises(SessionError, match="not a session"):
        resolve_session(tmp_path)
    with pytest.raises(SessionError, match="already holds a session"):
        create_session(path=c.root)

    infos = {i.digest.task: i for i in list_sessions(root)}
    assert set(infos) == {"softmax-cpu", "attention-cpu"}
    done = infos["softmax-cpu"]
    assert done.digest.ended == "goal_met"
    assert session_state(done.digest, None).word == "ended"
    assert done.digest.best_geomean == pytest.approx(1.31)
    assert done.digest.events == 3
    live = infos["attention-cpu"]
    assert session_state(live.digest, None, lock_held=live.paths.is_running()).word == "running"
    w.close()
    live = {i.digest.task: i for i in list_sessions(root)}["attention-cpu"]
    assert session_state(live.digest, None, lock_held=live.paths.is_running()).word == "lost"
    assert list_sessions(tmp_path / "missing") == []


def test_sessions_are_created_private_and_a_runner_refuses_one_others_can_write(tmp_path):
    import os
    import stat

    from sessions.inbox import Inbox
    from sessions.layout import private_problems, require_private

    root = tmp_path / "sessions"
    sp = create_session(root, task="softmax-cpu")
    assert stat.S_IMODE(sp.root.stat().st_mode) == 0o700
    Inbox(sp.root).post("hello")
    assert stat.S_IMODE(sp.inbox.stat().st_mode) == 0o600
    require_private(sp)  # nothing to complain about

    os.chmod(sp.inbox, 0o622)
    with pytest.raises(SessionError, match=r"the inbox .*inbox.jsonl is writable by everyone.*chmod o-w"):
        require_private(sp)
    os.chmod(sp.inbox, 0o600)
    os.chmod(sp.root, 0o770)
    (problem,) = private_problems(sp)
    assert "writable by group" in problem and "chmod g-w" in problem and "--group" in problem
    import grp

    own_group = grp.getgrgid(sp.root.stat().st_gid).gr_name
    require_private(sp, group=own_group)  # a group the user named may write it
    os.chmod(sp.root, 0o700)
    os.chmod(root, 0o777)
    with pytest.raises(SessionError, match="the directory holding the session .* writable by everyone"):
        require_private(sp)
    os.chmod(root, 0o1777)  # sticky, like /tmp: others cannot replace the session
    require_private(sp)
