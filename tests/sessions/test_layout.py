"""Session directories: create, resolve, list with status."""
from __future__ import annotations

import pytest

from sessions.layout import (create_session, kernelseek_home, list_sessions, resolve_session,
                             sessions_root)
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

    infos = {i.task: i for i in list_sessions(root)}
    assert set(infos) == {"softmax-cpu", "attention-cpu"}
    assert infos["softmax-cpu"].status == "ended: goal_met"
    assert infos["softmax-cpu"].best_geomean == pytest.approx(1.31)
    assert infos["softmax-cpu"].events == 3
    assert infos["attention-cpu"].status == "running"
    w.close()
    assert {i.task: i.status for i in list_sessions(root)}["attention-cpu"] == "stopped"
    assert list_sessions(tmp_path / "missing") == []
