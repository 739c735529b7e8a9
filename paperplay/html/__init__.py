"""Self-contained HTML pages for the host: a projector caller and a results page."""
