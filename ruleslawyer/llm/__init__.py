"""LLM backends behind one small interface (see ``base.LLM``).

``make_llm(settings)`` is the factory: it picks the backend from
``settings.llm`` and imports the heavy library only inside the chosen branch.
"""

from ruleslawyer.llm.base import LLM, ChatMessage
from ruleslawyer.llm.factory import make_llm

__all__ = ["LLM", "ChatMessage", "make_llm"]
