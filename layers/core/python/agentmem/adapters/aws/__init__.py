"""AWS backends: DynamoDB, S3 (and later OpenSearch and Bedrock)."""
