"""ruleslawyer: an offline rules-knowledge chatbot for tabletop wargames.

A question goes through three stages, each in its own subpackage:

- ``ruleslawyer.ingest``: rulebook text -> rule units -> FAISS index on disk;
- ``ruleslawyer.retrieval``: question -> the rule units that answer it;
- ``ruleslawyer.prompts`` + ``ruleslawyer.llm``: rule units -> a short answer
  whose quotes and citations are checked against the index.

``ruleslawyer.service`` ties them together for the CLI and the UI.
"""

__version__ = "0.1.0"
