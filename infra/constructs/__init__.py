"""One construct per concern; infra/stack.py composes them."""
