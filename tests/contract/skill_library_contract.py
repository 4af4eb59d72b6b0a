"""The SkillLibrary contract. Every adapter's test module subclasses SkillLibraryContract and
provides `make_library(tenant_id)`: a factory of libraries that share one backing store, so tenant
isolation is tested where it can fail."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentmem.errors import ConflictError, InvalidInputError, NotFoundError
from agentmem.ports.procedural import SkillLibrary
from agentmem.procedural.model import (
    MAX_IMPLEMENTATION_BYTES,
    FunctionSpec,
    GuidanceImage,
    GuidanceSpec,
    Link,
    SkillStatus,
    implementation_hash,
)

LibraryFactory = Callable[[str], SkillLibrary]


def fn(
    function_id: str, *depends_on: str, implementation: str | None = None, docstring: str | None = None
) -> FunctionSpec:
    return FunctionSpec(
        function_id=function_id,
        name=function_id.replace("-", "_"),
        signature=f"def {function_id.replace('-', '_')}(x: int) -> int",
        docstring=docstring or f"Does {function_id}.",
        implementation=implementation or f"return x  # {function_id}",
        depends_on=list(depends_on),
        author="ana",
    )


def guide(guidance_id: str, *function_ids: str, content: str = "Use the functions.") -> GuidanceSpec:
    return GuidanceSpec(
        guidance_id=guidance_id,
        title=f"How to {guidance_id}",
        content=content,
        images=[GuidanceImage(blob_uri=f"blob://{guidance_id}.png", alt="diagram", anchor="#steps")],
        function_ids=list(function_ids),
        author="ana",
    )


class SkillLibraryContract:
    @pytest.fixture
    def make_library(self) -> LibraryFactory:
        raise NotImplementedError

    @pytest.fixture
    def library(self, make_library: LibraryFactory) -> SkillLibrary:
        return make_library("acme")

    # -- functions ---------------------------------------------------------------------------

    def test_function_is_created_read_and_versioned(self, library: SkillLibrary) -> None:
        created = library.put_function(fn("parse-invoice"))
        assert created.version == 1
        assert created.status is SkillStatus.DRAFT
        assert created.impl_hash == implementation_hash(created.implementation)
        assert created.created_at == created.updated_at
        assert library.get_function("parse-invoice") == created

        rewritten = library.put_function(fn("parse-invoice", implementation="return x + 1"))
        assert rewritten.version == 2
        assert rewritten.created_at == created.created_at
        assert rewritten.impl_hash != created.impl_hash
        assert library.get_function("parse-invoice") == rewritten

    def test_restating_a_function_is_a_no_op(self, library: SkillLibrary) -> None:
        created = library.put_function(fn("parse-invoice"))
        assert library.put_function(fn("parse-invoice")) == created

    def test_missing_function_is_not_found(self, library: SkillLibrary) -> None:
        with pytest.raises(NotFoundError):
            library.get_function("nope")
        with pytest.raises(NotFoundError):
            library.delete_function("nope")

    def test_implementation_over_the_limit_is_refused(self, library: SkillLibrary) -> None:
        library.put_function(fn("big", implementation="x" * MAX_IMPLEMENTATION_BYTES))
        with pytest.raises(InvalidInputError) as err:
            library.put_function(fn("big", implementation="é" * MAX_IMPLEMENTATION_BYTES))
        assert err.value.field == "implementation"
        assert library.get_function("big").version == 1

    def test_unknown_dependency_is_refused(self, library: SkillLibrary) -> None:
        with pytest.raises(InvalidInputError) as err:
            library.put_function(fn("total", "missing"))
        assert err.value.field == "depends_on"
        assert "missing" in err.value.message
        with pytest.raises(NotFoundError):
            library.get_function("total")

    # -- links -------------------------------------------------------------------------------

    def test_links_are_listed_on_both_sides(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        library.put_function(fn("b"))
        library.put_function(fn("lonely"))
        first = library.put_guidance(guide("g1", "b", "a"))
        library.put_guidance(guide("g2", "a"))
        library.put_guidance(guide("g0"))

        assert first.function_ids == ["b", "a"]
        assert first.images[0].anchor == "#steps"
        assert library.get_guidance("g1") == first
        assert library.get_guidance("g0").function_ids == []
        assert library.get_function("a").guidance_ids == ["g1", "g2"]
        assert library.get_function("b").guidance_ids == ["g1"]
        assert library.get_function("lonely").guidance_ids == []
        assert library.links() == [
            Link(guidance_id="g1", function_id="a"),
            Link(guidance_id="g1", function_id="b"),
            Link(guidance_id="g2", function_id="a"),
        ]

    def test_guidance_naming_an_unknown_function_is_refused(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        with pytest.raises(InvalidInputError) as err:
            library.put_guidance(guide("g1", "a", "ghost"))
        assert err.value.field == "function_ids"
        assert "ghost" in err.value.message
        with pytest.raises(NotFoundError):
            library.get_guidance("g1")
        assert library.links() == []

    def test_guidance_rewrite_versions_and_relinks(self, library: SkillLibrary) -> None:
        for fid in ("a", "b", "c"):
            library.put_function(fn(fid))
        library.put_guidance(guide("g1", "a", "b"))
        library.put_function(fn("a", implementation="return 2"))  # a's link needs review
        rewritten = library.put_guidance(guide("g1", "c", "a", content="New steps."))
        assert rewritten.version == 2
        assert rewritten.function_ids == ["c", "a"]
        assert library.get_function("b").guidance_ids == []
        assert library.links(needs_review=True) == [
            Link(guidance_id="g1", function_id="a", needs_review=True)
        ]
        assert library.put_guidance(guide("g1", "c", "a", content="New steps.")) == rewritten

    def test_deleting_a_function_removes_it_from_guidance(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        library.put_function(fn("b"))
        library.put_guidance(guide("g1", "a", "b"))
        library.delete_function("a")
        with pytest.raises(NotFoundError):
            library.get_function("a")
        assert library.get_guidance("g1").function_ids == ["b"]
        assert library.links() == [Link(guidance_id="g1", function_id="b")]

    def test_deleting_guidance_removes_it_from_functions(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        library.put_guidance(guide("g1", "a"))
        library.put_guidance(guide("g2", "a"))
        library.delete_guidance("g1")
        with pytest.raises(NotFoundError):
            library.get_guidance("g1")
        with pytest.raises(NotFoundError):
            library.delete_guidance("g1")
        assert library.get_function("a").guidance_ids == ["g2"]

    def test_a_dependency_cannot_be_deleted_while_used(self, library: SkillLibrary) -> None:
        library.put_function(fn("base"))
        library.put_function(fn("user", "base"))
        with pytest.raises(ConflictError) as err:
            library.delete_function("base")
        assert "user" in err.value.message
        library.delete_function("user")
        library.delete_function("base")
        with pytest.raises(NotFoundError):
            library.get_function("base")

    # -- review ------------------------------------------------------------------------------

    def test_changed_implementation_marks_links_for_review(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        library.put_function(fn("b"))
        library.put_guidance(guide("g1", "a", "b"))
        library.put_guidance(guide("g2", "a"))

        same_code = library.put_function(fn("a", docstring="Better words."))
        assert same_code.version == 2
        assert library.links(needs_review=True) == []

        library.put_function(fn("a", implementation="return -x"))
        assert library.links(needs_review=True) == [
            Link(guidance_id="g1", function_id="a", needs_review=True),
            Link(guidance_id="g2", function_id="a", needs_review=True),
        ]
        assert library.links(needs_review=False) == [Link(guidance_id="g1", function_id="b")]

    def test_links_are_confirmed_or_dropped(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        library.put_guidance(guide("g1", "a"))
        library.put_guidance(guide("g2", "a"))
        library.put_function(fn("a", implementation="return -x"))

        assert library.confirm_link("g1", "a") == Link(guidance_id="g1", function_id="a")
        library.drop_link("g2", "a")
        assert library.links() == [Link(guidance_id="g1", function_id="a")]
        assert library.get_guidance("g2").function_ids == []
        assert library.get_function("a").guidance_ids == ["g1"]
        with pytest.raises(NotFoundError):
            library.confirm_link("g2", "a")
        with pytest.raises(NotFoundError):
            library.drop_link("g2", "a")

    def test_approve_changes_status_not_version(self, library: SkillLibrary) -> None:
        library.put_function(fn("a"))
        library.put_guidance(guide("g1", "a"))
        function = library.approve("function", "a")
        guidance = library.approve("guidance", "g1")
        assert (function.status, function.version) == (SkillStatus.APPROVED, 1)
        assert library.get_function("a").status is SkillStatus.APPROVED
        assert library.get_guidance("g1") == guidance
        assert guidance.status is SkillStatus.APPROVED
        assert guidance.function_ids == ["a"]
        with pytest.raises(NotFoundError):
            library.approve("guidance", "nope")

    # -- dependencies ------------------------------------------------------------------------

    def test_closure_of_a_diamond_is_in_dependency_order(self, library: SkillLibrary) -> None:
        library.put_function(fn("d"))
        library.put_function(fn("b", "d"))
        library.put_function(fn("c", "d"))
        library.put_function(fn("a", "b", "c"))
        assert [f.function_id for f in library.closure("a")] == ["d", "b", "c", "a"]
        assert [f.function_id for f in library.closure("c")] == ["d", "c"]
        assert [f.function_id for f in library.closure("d")] == ["d"]
        with pytest.raises(NotFoundError):
            library.closure("nope")

    def test_self_cycle_is_refused(self, library: SkillLibrary) -> None:
        with pytest.raises(InvalidInputError) as err:
            library.put_function(fn("a", "a"))
        assert err.value.field == "depends_on"
        assert "a -> a" in err.value.message
        with pytest.raises(NotFoundError):
            library.get_function("a")

    def test_three_cycle_is_refused_and_nothing_written(self, library: SkillLibrary) -> None:
        library.put_function(fn("c"))
        library.put_function(fn("b", "c"))
        library.put_function(fn("a", "b"))
        with pytest.raises(InvalidInputError) as err:
            library.put_function(fn("c", "a", implementation="return 3"))
        assert err.value.field == "depends_on"
        assert "c -> a -> b -> c" in err.value.message
        stored = library.get_function("c")
        assert (stored.version, stored.depends_on) == (1, [])
        assert [f.function_id for f in library.closure("a")] == ["c", "b", "a"]

    # -- tenants -----------------------------------------------------------------------------

    def test_tenants_are_isolated(self, make_library: LibraryFactory) -> None:
        acme, globex = make_library("acme"), make_library("globex")
        acme.put_function(fn("a"))
        acme.put_guidance(guide("g1", "a"))
        with pytest.raises(NotFoundError):
            globex.get_function("a")
        with pytest.raises(InvalidInputError):
            globex.put_guidance(guide("g1", "a"))
        globex.put_function(fn("a", implementation="return 'globex'"))
        assert globex.get_function("a").guidance_ids == []
        assert globex.links() == []
        globex.delete_function("a")
        assert acme.get_function("a").guidance_ids == ["g1"]
        assert acme.links() == [Link(guidance_id="g1", function_id="a")]
