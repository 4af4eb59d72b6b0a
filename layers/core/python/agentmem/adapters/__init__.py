"""Backend adapters. Only bootstrap imports these; the domain sees the ports."""
