"""The CheckpointStore contract: where each projector stopped in the log, so a restarted worker
resumes there. Every adapter's test class subclasses CheckpointStoreContract and provides
`make_checkpoints(tenant_id)`: stores over one backing store, so a new store is a restart.

What any store guarantees: a name never saved is at 0; the last save wins (a replay may move a
checkpoint back); names and tenants are independent; a save outlives the store that made it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentmem.ports.log import CheckpointStore

CheckpointFactory = Callable[[str], CheckpointStore]


class CheckpointStoreContract:
    @pytest.fixture
    def make_checkpoints(self) -> CheckpointFactory:
        raise NotImplementedError

    @pytest.fixture
    def checkpoints(self, make_checkpoints: CheckpointFactory) -> CheckpointStore:
        return make_checkpoints("acme")

    def test_a_name_never_saved_is_at_0(self, checkpoints: CheckpointStore) -> None:
        assert checkpoints.load("projector-g1") == 0

    def test_the_last_save_wins(self, checkpoints: CheckpointStore) -> None:
        checkpoints.save("projector-g1", 40)
        checkpoints.save("projector-g1", 75)
        assert checkpoints.load("projector-g1") == 75
        checkpoints.save("projector-g1", 3)
        assert checkpoints.load("projector-g1") == 3

    def test_names_are_independent(self, checkpoints: CheckpointStore) -> None:
        checkpoints.save("projector-g1", 10)
        checkpoints.save("projector-g2", 20)
        assert (checkpoints.load("projector-g1"), checkpoints.load("projector-g2")) == (10, 20)

    def test_tenants_are_independent(self, make_checkpoints: CheckpointFactory) -> None:
        acme, globex = make_checkpoints("acme"), make_checkpoints("globex")
        acme.save("projector-g1", 10)
        assert globex.load("projector-g1") == 0
        globex.save("projector-g1", 99)
        assert acme.load("projector-g1") == 10

    def test_a_save_outlives_the_store_that_made_it(self, make_checkpoints: CheckpointFactory) -> None:
        make_checkpoints("acme").save("projector-g1", 1234)
        assert make_checkpoints("acme").load("projector-g1") == 1234
