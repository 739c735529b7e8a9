"""Rendering: page models in millimetres (model), common page parts (parts), and the PDF writer (pdf)."""
