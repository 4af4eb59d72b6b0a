"""What `AgentMemStore` promises beyond LangGraph's own tests: reads show this store's writes
before the projector has applied them, a delete keeps the item's history, erasure forgets it,
the subject's other beliefs read as items, and the log keeps who wrote what."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import InvalidNamespaceError

from agentmem.api.app import build_resolver
from agentmem.client import AsyncMemoryClient, Gone, MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.integrations.langgraph import AgentMemStore, fact_key
from agentmem.model.beliefs import FactInput, Verdict
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.functional.langgraph.conftest import Served, sync_store


class StalledProjector:
    """The clients' sleep and the store's clock when no projector runs: each wait only moves
    the clock, so a search waits out its whole allowance at once."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def test_a_get_after_a_put_returns_the_value_before_any_projection(served: Served, root: str) -> None:
    stalled = StalledProjector()
    store = AgentMemStore(MemoryClient(served.url, sleep=stalled.sleep), clock=lambda: stalled.now)
    store.put((root, "prefs"), "food", {"likes": "pizza"})
    assert served.services.semantic.current(root) == []  # nothing projected yet
    assert store.get((root, "prefs"), "food").value == {"likes": "pizza"}
    store.put((root, "prefs"), "food", {"likes": "sushi"})
    assert store.get((root, "prefs"), "food").value == {"likes": "sushi"}
    store.delete((root, "prefs"), "food")
    assert store.get((root, "prefs"), "food") is None
    assert stalled.waits == []  # a get never waits


def test_a_search_waits_for_the_projection_then_falls_back_to_its_own_writes(
    served: Served, root: str
) -> None:
    stalled = StalledProjector()
    client = MemoryClient(served.url, sleep=stalled.sleep)
    store = AgentMemStore(client, clock=lambda: stalled.now, read_your_writes_seconds=2.0)
    store.put((root, "prefs"), "food", {"likes": "pizza"})
    found = store.search((root,), filter={"likes": "pizza"})
    assert [(i.key, i.value) for i in found] == [("food", {"likes": "pizza"})]
    assert sum(stalled.waits) == pytest.approx(2.0)  # polled with back-off up to the allowance
    assert stalled.waits[0] == 0.05 and all(w <= 0.5 for w in stalled.waits)
    assert store.list_namespaces(prefix=(root,)) == [(root, "prefs")]


def test_once_projected_another_store_reads_what_one_wrote(served: Served, root: str) -> None:
    writer, reader = sync_store(served), sync_store(served)
    writer.put((root, "prefs"), "food", {"likes": "pizza"})
    assert reader.get((root, "prefs"), "food") is None  # the reader has no record of the write
    writer.search((root,))  # waits (here: runs a projector round) until its write is applied
    assert reader.get((root, "prefs"), "food").value == {"likes": "pizza"}
    assert [i.key for i in reader.search((root,), query="favourite food")] == ["food"]


def test_the_background_worker_makes_a_write_visible_to_a_search(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("bg") / "data"))
    worker = local_worker(services).start()
    try:
        with LocalServer(lambda: build_resolver(services), port=0) as server:
            store = AgentMemStore(MemoryClient(server.url), read_your_writes_seconds=60)
            other = AgentMemStore(MemoryClient(server.url))
            store.put(("maya", "prefs"), "drink", {"likes": "green tea"})
            # The writer's search polls the beliefs until the worker has applied its write...
            assert [i.value for i in store.search(("maya",))] == [{"likes": "green tea"}]
            assert not store._context.pending.under(("maya",))  # ...and so settles it
            assert [i.value for i in other.search(("maya",))] == [{"likes": "green tea"}]
    finally:
        worker.stop()


def test_a_delete_is_recorded_and_keeps_the_history(served: Served, root: str) -> None:
    store = sync_store(served)
    namespace = (root, "prefs")
    store.put(namespace, "food", {"likes": "pizza"})
    store.put(namespace, "food", {"likes": "sushi"})
    store.delete(namespace, "food")
    assert store.search((root,)) == []
    client = MemoryClient(served.url)
    chain = client.belief_history(root, fact_key(namespace, "food"))
    assert [b.text for b in chain.history or []] == ['{"likes":"pizza"}', '{"likes":"sushi"}', "(deleted)"]
    events = client.list_events("langgraph-store", limit=1000).items
    mine = [e.content for e in events if e.subject_id == root]
    assert mine[-1] == {"namespace": [root, "prefs"], "key": "food", "deleted": True}
    store.put(namespace, "food", {"likes": "ramen"})  # a deleted item can be written again
    assert store.get(namespace, "food").value == {"likes": "ramen"}


def test_erasing_the_subject_forgets_every_item_and_closes_it(served: Served, root: str) -> None:
    store = sync_store(served)
    store.put((root, "prefs"), "food", {"likes": "pizza"})
    store.search((root,))
    MemoryClient(served.url, local_principals="writer").erase_subject(root)
    assert AgentMemStore(MemoryClient(served.url)).get((root, "prefs"), "food") is None
    with pytest.raises(Gone):
        store.put((root, "prefs"), "food", {"likes": "sushi"})


def test_a_value_judged_the_same_is_still_read_exactly(
    served: Served, root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verdict of SAME keeps the belief's old sentence (the LLM port may judge "pizza!" the
    same as "pizza"); the store then reads the latest value from the log."""
    store = sync_store(served)
    store.put((root, "prefs"), "food", {"likes": "pizza"})
    store.search((root,))
    monkeypatch.setattr(served.services.semantic.llm, "decide", lambda *_: Verdict.SAME)
    store.put((root, "prefs"), "food", {"likes": "Pizza!"})
    store.search((root,))
    belief = MemoryClient(served.url).belief(root, fact_key((root, "prefs"), "food")).current[0]
    assert belief.text == '{"likes":"pizza"}' and belief.verdict == Verdict.NEW  # the old sentence
    fresh = sync_store(served)
    assert fresh.get((root, "prefs"), "food").value == {"likes": "Pizza!"}
    assert [i.value for i in fresh.search((root,))] == [{"likes": "Pizza!"}]


def test_the_subjects_other_beliefs_read_as_items(served: Served, root: str) -> None:
    client = MemoryClient(served.url)
    lyon = FactInput(key="city", text=f"{root} lives in Lyon.", value="Lyon")
    client.append_event(
        "s1", subject_id=root, round=0, agent="intake", kind="profile", content="Lyon", facts=[lyon]
    )
    served.worker.run_once()
    store = sync_store(served)
    item = store.get((root, "beliefs"), "city")
    assert item is not None and item.value["value"] == "Lyon" and item.value["text"] == lyon.text
    assert [(i.namespace, i.key) for i in store.search((root,), query="where does she live")] == [
        ((root, "beliefs"), "city")
    ]
    assert store.list_namespaces(prefix=(root,)) == [(root, "beliefs")]
    with pytest.raises(ValueError, match="read-only"):
        store.put((root, "beliefs"), "city", {"value": "Paris"})


def test_the_log_keeps_which_agent_wrote_and_the_kind_is_the_namespace(served: Served, root: str) -> None:
    store = sync_store(served, session_id=f"{root}-s")
    store.as_agent("researcher").put((root, "notes", "work"), "n1", {"text": "likes bonds"})
    store.as_agent("advisor").put((root, "plans"), "p1", {"text": "bond ladder"})
    events = MemoryClient(served.url).list_events(f"{root}-s").items
    assert [(e.agent, e.kind) for e in events] == [("researcher", "notes:work"), ("advisor", "plans")]
    assert [e.facts[0].key for e in events if e.facts] == [
        fact_key((root, "notes", "work"), "n1"),
        fact_key((root, "plans"), "p1"),
    ]
    # Writes of one agent are read by the other at once: the views share what is pending.
    assert store.as_agent("advisor").get((root, "notes", "work"), "n1").value == {"text": "likes bonds"}


def test_what_agentmem_cannot_hold_is_refused_before_anything_is_written(served: Served, root: str) -> None:
    store = sync_store(served, session_id=f"{root}-refused")
    with pytest.raises(ValueError, match="at most 2000"):
        store.put((root,), "big", {"text": "x" * 2000})
    with pytest.raises(ValueError, match="not plain JSON"):
        store.put((root,), "nan", {"x": float("nan")})
    with pytest.raises(InvalidNamespaceError, match="subject id"):
        store.put(("not a subject id",), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError, match="starts with the subject id"):
        store.search(())
    with pytest.raises(InvalidNamespaceError, match="starts with the subject id"):
        store.list_namespaces(suffix=("x",))
    with pytest.raises(NotImplementedError):
        store.put((root,), "k", {"v": 1}, ttl=5)
    assert MemoryClient(served.url).list_events(f"{root}-refused").items == []


def test_abatch_without_an_async_client_runs_batch_on_a_thread(served: Served, root: str) -> None:
    store = sync_store(served)

    async def main() -> object:
        await store.aput((root,), "k", {"v": 1})
        return await store.aget((root,), "k")

    assert asyncio.run(main()).value == {"v": 1}  # type: ignore[attr-defined]
    only_async = AgentMemStore(async_client=AsyncMemoryClient(served.url))
    with pytest.raises(TypeError, match="async methods"):
        only_async.get((root,), "k")


def test_flush_waits_until_every_reader_sees_the_writes(served: Served, root: str) -> None:
    stalled = StalledProjector()
    stuck = AgentMemStore(MemoryClient(served.url, sleep=stalled.sleep), clock=lambda: stalled.now)
    stuck.put((root, "prefs"), "food", {"likes": "pizza"})
    assert stuck.flush(root) is False and sum(stalled.waits) == pytest.approx(10.0)
    store = sync_store(served)
    store.put((root, "prefs"), "drink", {"likes": "tea"})
    assert store.flush(root) is True
    assert sync_store(served).get((root, "prefs"), "drink").value == {"likes": "tea"}
