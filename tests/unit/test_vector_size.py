"""A local index meets a vector of another size than it holds (the embedder was switched over an
existing data folder): an error naming the settings, never numpy's broadcast or matmul error.
The belief index's case runs end to end in tests/functional/test_openai_compat_stack.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passage_store import SqlitePassageStore
from agentmem.adapters.local.vector_size import VectorSizeError, sized
from tests.contract.passage_index_contract import EAST, GARDEN, passage


def test_a_vector_of_the_indexs_size_passes_as_float32() -> None:
    assert sized([1, 0, 0], 3, "belief index").dtype.name == "float32"


def test_a_vector_of_another_size_names_the_index_both_sizes_and_the_settings() -> None:
    with pytest.raises(VectorSizeError) as raised:
        sized([0.0] * 768, 384, "belief index")
    message = raised.value.message
    assert "belief index holds 384-dimension vectors and the embedder gives 768" in message
    assert "AGENTMEM_EMBEDDER_DIMENSIONS" in message and "agentmem replay" in message


def test_the_history_index_refuses_a_query_of_another_size(tmp_path: Path) -> None:
    index = SqlitePassageStore(SqliteDatabase(tmp_path / "db"), "acme").generation(1)
    index.add([GARDEN], [EAST])
    with pytest.raises(VectorSizeError, match="history passage index"):
        index.vector_search("priya", [*EAST, 0.0], 1)


def test_the_history_index_refuses_rows_of_another_size_written_after_a_switch(tmp_path: Path) -> None:
    store = SqlitePassageStore(SqliteDatabase(tmp_path / "db"), "acme")
    store.generation(1).add([GARDEN], [EAST])
    assert store.active().vector_search("priya", EAST, 1)  # the matrix is built at EAST's size
    store.generation(1).add([passage("s2", 2, "Moved the beds to the east fence.")], [[*EAST, 0.0]])
    with pytest.raises(VectorSizeError, match="history passage index"):
        store.active().vector_search("priya", EAST, 1)
