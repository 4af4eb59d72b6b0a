"""Lambda entry point of the stream projector: the log table's DynamoDB stream, record by record,
into the beliefs and the skill and asset indexes, with partial batch failure
(agentmem.entrypoints.stream)."""

from agentmem.entrypoints.stream import stream_handler
from agentmem.wiring import bootstrap

services = bootstrap()
handler = stream_handler(services)
