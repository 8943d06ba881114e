"""The memory inspector: pages the sidecar serves under /ui to see what the agent knows about a
user, why a request got what it got, and to correct, forget, export and erase (pages.py), with
sign-in sessions (sessions.py), what the pages show (views.py) and their HTML (render.py)."""
