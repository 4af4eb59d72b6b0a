"""One Router per capability; api.app includes them."""
