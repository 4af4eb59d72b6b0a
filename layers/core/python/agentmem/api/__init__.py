"""HTTP API: one Powertools resolver shared by the Lambda handlers and the local server."""
