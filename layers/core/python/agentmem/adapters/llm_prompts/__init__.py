"""What every model-backed LLM adapter asks and how it checks the answer, in one place.

Bedrock Converse (`adapters/aws/bedrock_*`) and OpenAI-compatible servers
(`adapters/openai_compat/`) send the same system rules, the same user prompts and the same JSON
schemas, and apply the same checks to what comes back (grounding, declared keys, candidate keys,
ids that were shown). An adapter only supplies `Ask`: one structured call to its model. Each
schema is generated from the pydantic model its answer is parsed with, so the two cannot drift
(tests/unit/test_llm_prompts.py pins both adapters to this module). No SDK is imported here."""
