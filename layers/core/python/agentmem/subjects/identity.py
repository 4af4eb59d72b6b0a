"""The one name an erasure keeps for the subject it erased: a keyed hash of the subject id.

The hash is keyed with the tenant, so the same id in two tenants leaves unrelated tombstones. It
is one-way: the tombstone never holds the id, nor anything said about the subject. It is also
checkable, which is its purpose: whoever already knows an id can tell that it was erased, and
that is how every append and every projection refuses it. A random per-tenant salt would add
nothing here, since it would have to be stored beside the tombstones for that check to work."""

from __future__ import annotations

import hashlib
import hmac


def subject_hash(tenant_id: str, subject_id: str) -> str:
    key = f"agentmem-erasure:{tenant_id}".encode()
    return hmac.new(key, subject_id.encode(), hashlib.sha256).hexdigest()
