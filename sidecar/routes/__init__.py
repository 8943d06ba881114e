"""The sidecar's routes, one router per area (context lookups are served by the front door)."""
