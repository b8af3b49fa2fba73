"""Prompt templates (``templates/*.txt``) and the code that fills them."""
