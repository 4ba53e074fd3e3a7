"""Sessions: the event schema, the append-only log (writer, tolerant reader, live follower),
the inbox, session directories, and importers of foreign transcripts.

Imports nothing of ours; stdlib, pyyaml and watchfiles only.
"""
from sessions.events import EVENT_TYPES, SCHEMA_VERSION, validate_event
from sessions.inbox import Inbox, InboxMessage
from sessions.layout import SessionPaths, create_session, list_sessions, resolve_session, sessions_root
from sessions.log import (LogReader, Malformed, SessionError, SessionLockedError, SessionWriter,
                          read_events)

__all__ = [
    "EVENT_TYPES", "SCHEMA_VERSION", "validate_event", "Inbox", "InboxMessage", "SessionPaths",
    "create_session", "list_sessions", "resolve_session", "sessions_root", "LogReader",
    "Malformed", "SessionError", "SessionLockedError", "SessionWriter", "read_events",
]
