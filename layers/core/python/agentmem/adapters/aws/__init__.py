"""AWS backends: DynamoDB, S3, OpenSearch and Bedrock."""
