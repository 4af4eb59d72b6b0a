"""What every OpenAI-compatible adapter promises under faults (DESIGN invariant 8), the twin of
backend_faults_contract.py for the `openai` SDK: a fault that may pass (429, 5xx, a refused
connection, a timeout) is a BackendUnavailableError, which the API answers 503 with Retry-After
and the stream retries; a request the server refuses (a bad key, an unknown model, a request
too long) is a plain AgentMemError (500, no retry loop) that names the setting to check; no SDK
exception leaves the adapter, and the server's own message (which may quote the key) does not
reach the domain error.

Each adapter's test class mixes these in and provides `server` (the FakeOpenAIServer behind it,
whose client is built with max_retries=0) and `calls`: one zero-argument callable per port method
that reaches the server. `ChatFaultsContract` adds what the chat adapters share: an answer the
model did not finish, refused, or that is not the schema's, is a ModelOutputError."""

from __future__ import annotations

from collections.abc import Callable

import openai
import pytest

from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.errors import AgentMemError, BackendUnavailableError
from tests.openai_fixtures import (
    BAD_KEY,
    NO_SUCH_MODEL,
    OVERLOADED,
    REFUSED,
    SERVER_ERROR,
    THROTTLED,
    TIMED_OUT,
    UNREACHABLE,
    FakeOpenAIServer,
    Fault,
)

Calls = list[Callable[[], object]]


def domain_error_of(call: Callable[[], object]) -> AgentMemError:
    with pytest.raises(AgentMemError) as caught:
        call()
    error = caught.value
    assert not isinstance(error, openai.OpenAIError)
    assert isinstance(error.__cause__, openai.OpenAIError)  # kept for the logs
    return error


class OpenAIFaultsContract:
    @pytest.fixture
    def server(self) -> FakeOpenAIServer:
        raise NotImplementedError

    @pytest.fixture
    def calls(self) -> Calls:
        raise NotImplementedError

    @pytest.mark.parametrize("fault", [THROTTLED, OVERLOADED, SERVER_ERROR, UNREACHABLE, TIMED_OUT])
    def test_a_passing_fault_is_retryable(
        self, server: FakeOpenAIServer, calls: Calls, fault: Fault | str
    ) -> None:
        server.fault = fault
        for call in calls:
            error = domain_error_of(call)
            assert isinstance(error, BackendUnavailableError)
            assert error.retry_after_seconds >= 1

    def test_the_servers_retry_after_is_passed_on(self, server: FakeOpenAIServer, calls: Calls) -> None:
        server.fault = THROTTLED
        for call in calls:
            error = domain_error_of(call)
            assert isinstance(error, BackendUnavailableError)
            assert error.retry_after_seconds == int(THROTTLED.headers["retry-after"])

    @pytest.mark.parametrize("fault", [BAD_KEY, NO_SUCH_MODEL, REFUSED], ids=lambda f: str(f.status))
    def test_a_refused_request_is_a_plain_domain_error(
        self, server: FakeOpenAIServer, calls: Calls, fault: Fault
    ) -> None:
        server.fault = fault
        for call in calls:
            error = domain_error_of(call)
            assert not isinstance(error, BackendUnavailableError | ModelOutputError)
            assert f"HTTP {fault.status}" in error.message
            assert fault.message not in error.message
            assert "sk-test" not in error.message

    @pytest.mark.parametrize(
        ("fault", "setting"), [(BAD_KEY, "_API_KEY"), (NO_SUCH_MODEL, "_MODEL")], ids=["401", "404"]
    )
    def test_a_refusal_names_the_setting_to_check(
        self, server: FakeOpenAIServer, calls: Calls, fault: Fault, setting: str
    ) -> None:
        server.fault = fault
        for call in calls:
            assert setting in domain_error_of(call).message

    def test_each_call_reaches_the_server_once(self, server: FakeOpenAIServer, calls: Calls) -> None:
        # So the faults above are the answers to real requests, not refusals before any was sent.
        server.fault = THROTTLED
        for call in calls:
            sent = len(server.requests)
            with pytest.raises(BackendUnavailableError):
                call()
            assert len(server.requests) == sent + 1


class ChatFaultsContract(OpenAIFaultsContract):
    @pytest.mark.parametrize("finish", ["length", "content_filter"])
    def test_an_unfinished_answer_is_a_model_output_error(
        self, server: FakeOpenAIServer, calls: Calls, finish: str
    ) -> None:
        server.finish = finish
        for call in calls:
            with pytest.raises(ModelOutputError, match=finish):
                call()

    @pytest.mark.parametrize("text", ["Sure! Here are the facts you asked for.", '{"unexpected": true}'])
    def test_an_answer_outside_the_schema_is_a_model_output_error(
        self, server: FakeOpenAIServer, calls: Calls, text: str
    ) -> None:
        server.raw_text = text
        for call in calls:
            with pytest.raises(ModelOutputError) as caught:
                call()
            assert not isinstance(caught.value, BackendUnavailableError)

    def test_a_refusal_is_a_model_output_error(self, server: FakeOpenAIServer, calls: Calls) -> None:
        server.refusal = "I'm sorry, I can't help with that."
        for call in calls:
            with pytest.raises(ModelOutputError, match="refused"):
                call()
