"""Key layout. Every key of one user shares the hash tag {tenant:user}, so a Redis Cluster keeps a
user on one node and each script touches a single slot."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Keys:
    namespace: str = "ss"

    def prefix(self, tenant: str, user: str) -> str:
        # tenant and user ids are validated (no braces or colons) before they reach here
        return f"{self.namespace}:{{{tenant}:{user}}}"

    def meta(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":meta"

    def active(self, tenant: str, user: str, scope: str) -> str:
        return f"{self.prefix(tenant, user)}:act:{scope}"

    def records(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":rec"

    def history(self, tenant: str, user: str, slot: str) -> str:
        return f"{self.prefix(tenant, user)}:hist:{slot}"

    def log(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":log"

    def suppressions(self, tenant: str, user: str) -> str:
        return self.prefix(tenant, user) + ":sup"

    def pattern(self) -> str:
        return f"{self.namespace}:*"
