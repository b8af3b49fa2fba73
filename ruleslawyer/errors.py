"""Domain errors. The CLI and UI turn these into one-line messages at the edge;
everything below raises them and never prints or exits."""


class RulesLawyerError(Exception):
    """Base class: ``str(err)`` is the one-line message shown to the user."""


class InputError(RulesLawyerError):
    """The user gave us something we cannot use (empty question, bad file)."""


class RulebookError(InputError):
    """A rulebook file cannot be read or holds no usable text."""


class IndexMissingError(RulesLawyerError):
    """No index yet, or it is unusable; the fix is `ruleslawyer ingest`."""


class IndexCorruptError(IndexMissingError):
    """The index on disk fails its checksums or format checks."""


class RuleNotFoundError(RulesLawyerError):
    """A rule ID that is not in the index."""


class ModelError(RulesLawyerError):
    """An LLM or embedding model cannot be loaded or fails to answer."""
