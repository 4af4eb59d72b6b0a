"""What the deployment holds about one subject, as a whole: erasure, retention and export."""
