"""The StampedLibrary contract: the cheap listing a skill search index compares with what it
indexed, to know what to re-index. An adapter's test class mixes StampedLibraryContract into its
SkillLibraryContract subclass (same `make_library` fixture).

What any stamped library guarantees: one (kind, id, status, stamp) per function and guidance of
the tenant, in no promised order; the stamp is `{version}|{updated_at}` of the stored item, so
every write that stores something moves it and a no-op restatement does not; approval shows in
the status; a deletion removes the entry; a library sees writes made through another handle."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import pytest

from agentmem.ports.procedural import StampedLibrary
from agentmem.procedural.model import Function, Guidance, SkillStatus
from tests.contract.skill_library_contract import LibraryFactory, fn, guide

Stamp = tuple[str, str, str, str]


def stamp_of(kind: str, item: Function | Guidance) -> Stamp:
    skill_id = item.function_id if isinstance(item, Function) else item.guidance_id
    return (kind, skill_id, item.status.value, f"{item.version}|{item.updated_at}")


class StampedLibraryContract:
    @pytest.fixture
    def make_library(self) -> LibraryFactory:
        raise NotImplementedError

    @pytest.fixture
    def stamped(self, make_library: LibraryFactory) -> Callable[[str], StampedLibrary]:
        return lambda tenant: cast("StampedLibrary", make_library(tenant))

    def test_an_empty_library_has_no_stamps(self, stamped: Callable[[str], StampedLibrary]) -> None:
        assert stamped("acme").stamps() == []

    def test_every_item_has_one_stamp_of_its_version_and_write_time(
        self, stamped: Callable[[str], StampedLibrary]
    ) -> None:
        library = stamped("acme")
        a, b = library.put_function(fn("a")), library.put_function(fn("b", "a"))
        g = library.put_guidance(guide("g1", "a"))
        expected = {stamp_of("function", a), stamp_of("function", b), stamp_of("guidance", g)}
        stamps = library.stamps()
        assert len(stamps) == 3
        assert set(stamps) == expected

    def test_a_rewrite_moves_the_stamp_and_a_restatement_does_not(
        self, stamped: Callable[[str], StampedLibrary]
    ) -> None:
        library = stamped("acme")
        library.put_function(fn("a"))
        before = set(library.stamps())
        library.put_function(fn("a"))
        assert set(library.stamps()) == before
        rewritten = library.put_function(fn("a", implementation="return x + 1"))
        assert library.stamps() == [stamp_of("function", rewritten)]
        assert rewritten.version == 2

    def test_approval_shows_in_the_status(self, stamped: Callable[[str], StampedLibrary]) -> None:
        library = stamped("acme")
        library.put_function(fn("a"))
        approved = library.approve("function", "a")
        assert library.stamps() == [stamp_of("function", approved)]
        assert library.stamps()[0][2] == SkillStatus.APPROVED.value

    def test_a_deletion_removes_the_stamp(self, stamped: Callable[[str], StampedLibrary]) -> None:
        library = stamped("acme")
        library.put_function(fn("a"))
        library.put_guidance(guide("g1", "a"))
        library.delete_guidance("g1")
        assert [s[:2] for s in library.stamps()] == [("function", "a")]
        library.delete_function("a")
        assert library.stamps() == []

    def test_writes_through_another_handle_are_seen(self, stamped: Callable[[str], StampedLibrary]) -> None:
        reader, writer = stamped("acme"), stamped("acme")
        assert reader.stamps() == []
        created = writer.put_function(fn("a"))
        assert reader.stamps() == [stamp_of("function", created)]
        writer.delete_function("a")
        assert reader.stamps() == []

    def test_tenants_never_see_each_others_stamps(self, stamped: Callable[[str], StampedLibrary]) -> None:
        acme, globex = stamped("acme"), stamped("globex")
        acme.put_function(fn("a"))
        globex.put_function(fn("z"))
        assert [s[1] for s in acme.stamps()] == ["a"]
        assert [s[1] for s in globex.stamps()] == ["z"]
