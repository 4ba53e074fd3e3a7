"""The console's screens: the session (live or replay), and the modals over it."""
