"""The DependentsIndex contract: what each dependent was built on, and what moved under it. Every
adapter's test class subclasses DependentsIndexContract and provides `make_index(tenant_id)`:
indexes over one backing store, so a new index is another process (the projector, the API), each
reading the time from the `clock` fixture.

What any index guarantees: a use is stale once its belief moved past the version it saw, showing
that version, the highest reached and the reason; marking is idempotent and never lowers a mark;
an erasure marks every use of the subject for good; recording again makes a dependent fresh;
bodies read back; tenants are independent; a dependent recorded with a ttl reads as unknown once
it has run out, and no mark counts it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from agentmem.model.dependents import BeliefRef, BeliefUse, Staleness
from agentmem.ports.dependents import DependentsIndex

IndexFactory = Callable[[str], DependentsIndex]

RISK = BeliefRef(subject_id="priya", key="risk_tolerance")
CITY = BeliefRef(subject_id="priya", key="city")
DIET = BeliefRef(subject_id="priya", key="diet", member="vegan")
OMAR = BeliefRef(subject_id="omar", key="risk_tolerance")


class Clock:
    """Epoch seconds that move only when told to."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class DependentsIndexContract:
    @pytest.fixture
    def clock(self) -> Clock:
        return Clock()

    @pytest.fixture
    def make_index(self) -> IndexFactory:
        raise NotImplementedError

    @pytest.fixture
    def index(self, make_index: IndexFactory) -> DependentsIndex:
        return make_index("acme")

    def test_an_unknown_dependent_is_fresh_and_has_nothing(self, index: DependentsIndex) -> None:
        assert index.uses_of("guidance:g") == []
        assert index.stale_of("guidance:g") == []
        assert index.body_of("guidance:g") is None
        assert index.forget("guidance:g") is False

    def test_uses_and_body_read_back_from_another_process(self, make_index: IndexFactory) -> None:
        make_index("acme").record("guidance:g", [BeliefUse(RISK, 1), BeliefUse(DIET, 2)], body="v3")
        other = make_index("acme")
        assert other.uses_of("guidance:g") == [BeliefUse(DIET, 2), BeliefUse(RISK, 1)]
        assert other.body_of("guidance:g") == "v3"

    def test_a_new_version_marks_every_use_of_an_older_one(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 1), BeliefUse(CITY, 1)])
        index.record("asset:a", [BeliefUse(RISK, 1)])
        index.record("asset:fresh", [BeliefUse(RISK, 2)])
        assert index.mark_stale(RISK, 2, "contradicted") == ["asset:a", "guidance:g"]
        expected = Staleness(
            belief="priya/risk_tolerance", from_version=1, to_version=2, reason="contradicted"
        )
        assert index.stale_of("guidance:g") == [expected]
        assert index.stale_of("asset:fresh") == []

    def test_stale_of_many_answers_the_stale_ones_as_stale_of_does(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 1), BeliefUse(CITY, 1)])
        index.record("guidance:h", [BeliefUse(RISK, 1)])
        index.record("guidance:fresh", [BeliefUse(CITY, 1)])
        assert index.stale_of_many(["guidance:g", "guidance:h", "guidance:fresh"]) == {}
        index.mark_stale(RISK, 2, "updated")
        index.mark_erased("omar")
        many = index.stale_of_many(["guidance:h", "guidance:g", "guidance:fresh", "guidance:unknown"])
        assert many == {
            "guidance:g": index.stale_of("guidance:g"),
            "guidance:h": index.stale_of("guidance:h"),
        }
        assert list(many) == ["guidance:g", "guidance:h"] and len(many["guidance:g"]) == 1
        assert index.stale_of_many([]) == {}

    def test_only_the_named_belief_marks_its_uses(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 1)])
        index.record("guidance:set", [BeliefUse(DIET, 1)])
        assert index.mark_stale(OMAR, 5, "updated") == []
        assert index.mark_stale(CITY, 5, "updated") == []
        assert index.mark_stale(BeliefRef(subject_id="priya", key="diet", member="keto"), 5, "new") == []
        assert index.mark_stale(BeliefRef(subject_id="priya", key="risk"), 5, "new") == []  # a prefix
        assert index.stale_of("guidance:g") == [] and index.stale_of("guidance:set") == []
        assert index.mark_stale(DIET, 2, "updated") == ["guidance:set"]

    def test_marking_is_idempotent_and_never_lowers_a_mark(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 1)])
        assert index.mark_stale(RISK, 3, "updated") == ["guidance:g"]
        assert index.mark_stale(RISK, 3, "updated") == []  # redelivered
        assert index.mark_stale(RISK, 2, "contradicted") == []  # replayed, or out of order
        assert index.stale_of("guidance:g")[0].to_version == 3
        assert index.mark_stale(RISK, 4, "contradicted") == ["guidance:g"]
        (stale,) = index.stale_of("guidance:g")
        assert (stale.from_version, stale.to_version, stale.reason) == (1, 4, "contradicted")

    def test_a_belief_cited_before_it_existed_is_stale_once_stated(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 0)])
        assert index.mark_stale(RISK, 1, "new") == ["guidance:g"]
        assert index.stale_of("guidance:g")[0].from_version == 0

    def test_an_erasure_marks_every_use_of_the_subject_for_good(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 2), BeliefUse(DIET, 1), BeliefUse(OMAR, 1)])
        assert index.mark_erased("priya") == ["guidance:g"]
        assert index.mark_erased("priya") == []
        assert index.mark_stale(RISK, 9, "updated") == []  # a later version never clears it
        stale = index.stale_of("guidance:g")
        assert [(s.belief, s.to_version, s.reason) for s in stale] == [
            ("priya/diet#vegan", None, "erased"),
            ("priya/risk_tolerance", None, "erased"),
        ]

    def test_recording_again_makes_a_dependent_fresh(self, index: DependentsIndex) -> None:
        index.record("guidance:g", [BeliefUse(RISK, 1), BeliefUse(CITY, 1)])
        index.mark_stale(RISK, 2, "updated")
        index.record("guidance:g", [BeliefUse(RISK, 2)], body="v2")
        assert index.stale_of("guidance:g") == []
        assert index.mark_stale(CITY, 2, "updated") == []  # a use it no longer has
        assert index.uses_of("guidance:g") == [BeliefUse(RISK, 2)]

    def test_a_use_recorded_stale_stays_stale_and_reads_back(self, index: DependentsIndex) -> None:
        inherited = Staleness(belief="priya/risk_tolerance", from_version=1, to_version=2, reason="updated")
        index.record("report:r", [BeliefUse(RISK, 1, inherited)], body="{}")
        assert index.stale_of("report:r") == [inherited]
        assert index.mark_stale(RISK, 2, "updated") == []
        assert index.mark_stale(RISK, 3, "contradicted") == ["report:r"]

    def test_forget_drops_the_dependent(self, index: DependentsIndex) -> None:
        index.record("asset:a", [BeliefUse(RISK, 1)], body="7")
        assert index.forget("asset:a") is True
        assert index.uses_of("asset:a") == [] and index.body_of("asset:a") is None
        assert index.mark_stale(RISK, 2, "updated") == []

    def test_tenants_are_independent(self, make_index: IndexFactory) -> None:
        make_index("acme").record("guidance:g", [BeliefUse(RISK, 1)])
        globex = make_index("globex")
        assert globex.uses_of("guidance:g") == []
        assert globex.mark_stale(RISK, 2, "updated") == []
        assert make_index("acme").stale_of("guidance:g") == []

    def test_a_dependent_recorded_with_a_ttl_expires(self, make_index: IndexFactory, clock: Clock) -> None:
        index = make_index("acme")
        week = timedelta(days=7)
        index.record("report:r", [BeliefUse(RISK, 1)], body="{}", ttl=week)
        index.record("guidance:g", [BeliefUse(RISK, 1)], body="v1")  # no ttl: never expires
        clock.now += week.total_seconds() - 1
        assert index.body_of("report:r") == "{}" and index.uses_of("report:r") == [BeliefUse(RISK, 1)]
        clock.now += 1
        assert index.body_of("report:r") is None
        assert index.uses_of("report:r") == [] and index.stale_of("report:r") == []
        assert index.mark_stale(RISK, 2, "updated") == ["guidance:g"]
        assert index.mark_erased("priya") == ["guidance:g"]
        assert list(index.stale_of_many(["report:r", "guidance:g"])) == [
            "guidance:g"
        ]  # a run-out one reads fresh
        index.expire()
        assert make_index("acme").body_of("report:r") is None
        assert make_index("acme").body_of("guidance:g") == "v1"

    def test_recording_again_renews_the_ttl(self, index: DependentsIndex, clock: Clock) -> None:
        index.record("cache:c", [BeliefUse(RISK, 1)], ttl=timedelta(hours=1))
        clock.now += 3000
        index.record("cache:c", [BeliefUse(RISK, 1)], ttl=timedelta(hours=1))
        clock.now += 3000
        assert index.uses_of("cache:c") == [BeliefUse(RISK, 1)]
        assert index.expire() == 0  # nothing has run out
