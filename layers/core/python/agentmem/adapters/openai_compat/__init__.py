"""The LLM and Embedder ports on any OpenAI-compatible server (Ollama, vLLM, llama.cpp's server,
LM Studio, a LiteLLM proxy, OpenAI itself) through the official `openai` SDK. Chosen with
`AGENTMEM_LLM=openai` and `AGENTMEM_EMBEDDER=openai`; see docs/openai-compatible.md. The prompts,
schemas and answer checks are the Bedrock adapter's own (`agentmem.adapters.llm_prompts`)."""
