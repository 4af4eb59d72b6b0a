"""The one engine that ranks, packs and renders under a token budget. Context reads, skill
search and skill composition all build candidates and hand them to `pack`."""
