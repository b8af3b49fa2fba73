"""Rulebook text -> rule units -> FAISS index.

``reader`` refuses unusable files, ``parse`` picks a parser by what the text
looks like (``numbered``, ``abilities``, ``wiki``, ``plain``), ``embed`` wraps
the sentence-transformers model, ``store`` writes and verifies the index.
"""
