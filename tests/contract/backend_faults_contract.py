"""What every adapter of a remote backend promises under faults (DESIGN invariant 8): a fault that
may pass (throttling, a busy model, a 5xx, an unreachable endpoint) is a BackendUnavailableError,
which the API answers 503 with Retry-After and the stream retries; a request the service refuses
is a plain AgentMemError (500, no retry loop); no botocore exception leaves the adapter, and no
AWS message (account ids, ARNs) reaches the domain error.

Each Bedrock adapter's test class mixes these in and provides `bedrock` (the RecordedBedrock
behind it) and `calls`: one zero-argument callable per port method that reaches the backend.
`ConverseFaultsContract` adds what the Converse adapters share: an answer the model did not
finish, or that is not the schema's, is a ModelOutputError (a domain error, not retryable)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.errors import AgentMemError, BackendUnavailableError
from tests.bedrock_fixtures import (
    DENIED,
    INVALID,
    MODEL_NOT_READY,
    THROTTLED,
    UNAVAILABLE,
    UNREACHABLE,
    Fault,
    RecordedBedrock,
    RecordedConverse,
)

Calls = list[Callable[[], object]]


def domain_error_of(call: Callable[[], object]) -> AgentMemError:
    with pytest.raises(AgentMemError) as caught:
        call()
    error = caught.value
    assert not isinstance(error, ClientError | BotoCoreError)
    assert isinstance(error.__cause__, ClientError | BotoCoreError)  # kept for the logs
    return error


class BackendFaultsContract:
    @pytest.fixture
    def bedrock(self) -> RecordedBedrock:
        raise NotImplementedError

    @pytest.fixture
    def calls(self) -> Calls:
        raise NotImplementedError

    @pytest.mark.parametrize("fault", [THROTTLED, MODEL_NOT_READY, UNAVAILABLE, UNREACHABLE])
    def test_a_passing_fault_is_retryable(
        self, bedrock: RecordedBedrock, calls: Calls, fault: Fault | str
    ) -> None:
        bedrock.fault = fault
        for call in calls:
            error = domain_error_of(call)
            assert isinstance(error, BackendUnavailableError)
            assert error.retry_after_seconds >= 1

    @pytest.mark.parametrize("fault", [INVALID, DENIED])
    def test_a_refused_request_is_a_plain_domain_error(
        self, bedrock: RecordedBedrock, calls: Calls, fault: Fault
    ) -> None:
        bedrock.fault = fault
        for call in calls:
            error = domain_error_of(call)
            assert not isinstance(error, BackendUnavailableError)
            assert fault.code in error.message
            assert fault.message not in error.message
            assert "123456789012" not in error.message

    def test_each_call_reaches_the_backend_once(self, bedrock: RecordedBedrock, calls: Calls) -> None:
        # So the faults above are the answers to real requests, not refusals before any was sent.
        bedrock.fault = THROTTLED
        for call in calls:
            sent = len(bedrock.requests)
            with pytest.raises(BackendUnavailableError):
                call()
            assert len(bedrock.requests) == sent + 1


class ConverseFaultsContract(BackendFaultsContract):
    @pytest.fixture
    def converse(self, bedrock: RecordedBedrock) -> RecordedConverse:
        assert isinstance(bedrock.model, RecordedConverse)
        return bedrock.model

    @pytest.mark.parametrize("stop", ["max_tokens", "guardrail_intervened", "content_filtered"])
    def test_an_unfinished_answer_is_a_model_output_error(
        self, converse: RecordedConverse, calls: Calls, stop: str
    ) -> None:
        converse.stop = stop
        for call in calls:
            with pytest.raises(ModelOutputError, match=stop):
                call()

    @pytest.mark.parametrize("text", ["Sure! Here are the facts you asked for.", '{"unexpected": true}'])
    def test_an_answer_outside_the_schema_is_a_model_output_error(
        self, converse: RecordedConverse, calls: Calls, text: str
    ) -> None:
        converse.raw_text = text
        for call in calls:
            with pytest.raises(ModelOutputError) as caught:
                call()
            assert not isinstance(caught.value, BackendUnavailableError)
