"""The VectorCache contract. Every adapter's test class subclasses VectorCacheContract and provides
`make_cache(tenant_id)`: caches over one backing store, so a new cache is a restart.

What any cache guarantees: a vector comes back exactly as it was put (every float, float32 or
not), to whoever asks by its text's hash; digests not held are simply absent; models and tenants
are apart; a put replaces; forgetting a subject drops its ownership under every model and every
vector nobody else owns, and nothing of another subject's or tenant's; and what was put
outlives the cache object that put it (a replay in another process finds it)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from agentmem.ports.vectors import VectorCache

CacheFactory = Callable[[str], VectorCache]
MODEL, OTHER_MODEL = "all-MiniLM-L6-v2-int8-onnx@384", "openai:nomic-embed-text@768"
SINGLE = [0.25, -0.5, 0.125, 1.0]  # exact in float32
DOUBLE = [0.1, 0.2, 1 / 3, -2.0]  # not: a float32 copy would change them


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


A, B, C = digest("a"), digest("b"), digest("c")


class VectorCacheContract:
    @pytest.fixture
    def make_cache(self) -> CacheFactory:
        raise NotImplementedError

    def test_a_vector_comes_back_exactly_as_put(self, make_cache: CacheFactory) -> None:
        cache = make_cache("acme")
        assert cache.put(MODEL, {("priya", A): SINGLE, ("priya", B): DOUBLE}) == 2
        found = cache.get(MODEL, [A, B])
        assert found == {A: SINGLE, B: DOUBLE}
        assert all(type(x) is float for vector in found.values() for x in vector)

    def test_digests_not_held_are_absent_and_repeats_answered_once(self, make_cache: CacheFactory) -> None:
        cache = make_cache("acme")
        assert cache.get(MODEL, []) == {}
        assert cache.put(MODEL, {}) == 0
        cache.put(MODEL, {("priya", A): SINGLE})
        assert cache.get(MODEL, [A, C, A, A]) == {A: SINGLE}

    def test_the_same_text_is_the_same_vector_whoever_said_it(self, make_cache: CacheFactory) -> None:
        cache = make_cache("acme")
        cache.put(MODEL, {("priya", A): SINGLE})
        assert cache.get(MODEL, [A]) == {A: SINGLE}  # sam asking for the same words finds it

    def test_models_and_tenants_are_apart(self, make_cache: CacheFactory) -> None:
        acme, other = make_cache("acme"), make_cache("globex")
        acme.put(MODEL, {("priya", A): SINGLE, ("", B): DOUBLE})
        assert acme.get(OTHER_MODEL, [A, B]) == {}
        assert other.get(MODEL, [A, B]) == {}

    def test_a_put_replaces(self, make_cache: CacheFactory) -> None:
        cache = make_cache("acme")
        cache.put(MODEL, {("priya", A): SINGLE})
        cache.put(MODEL, {("sam", A): DOUBLE})
        assert cache.get(MODEL, [A]) == {A: DOUBLE}

    def test_forgetting_a_subject_drops_what_only_it_said_under_every_model(
        self, make_cache: CacheFactory
    ) -> None:
        cache, other_tenant = make_cache("acme"), make_cache("globex")
        cache.put(MODEL, {("priya", A): SINGLE, ("priya", B): SINGLE, ("sam", B): SINGLE, ("", C): SINGLE})
        cache.put(OTHER_MODEL, {("priya", A): DOUBLE})
        other_tenant.put(MODEL, {("priya", A): SINGLE})
        assert cache.forget_subject("priya") == 3
        assert cache.get(MODEL, [A, B, C]) == {B: SINGLE, C: SINGLE}  # sam said B too
        assert cache.get(OTHER_MODEL, [A]) == {}
        assert other_tenant.get(MODEL, [A]) == {A: SINGLE}
        assert cache.forget_subject("priya") == 0  # a repeat finds nothing
        assert cache.forget_subject("sam") == 1
        assert cache.get(MODEL, [B]) == {}

    def test_a_subject_that_said_it_again_after_forgetting_owns_it_anew(
        self, make_cache: CacheFactory
    ) -> None:
        cache = make_cache("acme")
        cache.put(MODEL, {("priya", A): SINGLE})
        cache.forget_subject("priya")
        cache.put(MODEL, {("sam", A): SINGLE})
        assert cache.forget_subject("priya") == 0
        assert cache.get(MODEL, [A]) == {A: SINGLE}

    def test_many_digests_in_one_call(self, make_cache: CacheFactory) -> None:
        # More than any adapter's lookup chunk, as a replay's batch asks.
        cache = make_cache("acme")
        held = {(f"s{i % 7}", digest(f"text {i}")): [float(i), 0.5, -1.0, 2.0] for i in range(1_500)}
        assert cache.put(MODEL, held) == len(held)
        asked = [*(d for _, d in held), *(digest(f"missing {i}") for i in range(300))]
        assert cache.get(MODEL, asked) == {d: v for (_, d), v in held.items()}

    def test_what_was_put_outlives_the_cache_object(self, make_cache: CacheFactory) -> None:
        make_cache("acme").put(MODEL, {("priya", A): DOUBLE})
        assert make_cache("acme").get(MODEL, [A]) == {A: DOUBLE}
