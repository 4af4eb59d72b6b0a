"""Entry points: how a process starts and reaches the domain through agentmem.wiring.

- lambda_http: the HTTP Lambda functions (write, read, skills, compose), one resolver each
- stream: the stream projector Lambda, typed DynamoDB records, partial batch failure
- cli: `agentmem serve | project | replay | verify | reindex | eval`
- server: the local HTTP server `agentmem serve` runs (uvicorn, API keys, worker lanes)"""
