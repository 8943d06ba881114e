"""The domain, pure: models, attribute registry, reconciliation, eligibility, ranking. No I/O here."""
