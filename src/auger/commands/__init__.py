"""Commands: the `/name` mechanism, its context, and the built-in commands. What a host uses
of them (the `@file` mentions of typed text, the project's files to complete, the one
Markdown parser's finished blocks), imported at first use."""

from __future__ import annotations

from auger._lazy import exports, names

_TABLE = {
    "mentions": ("MentionError", "attach", "attach_image"),
    "file_finder": ("project_files", "rank"),
    "markdown": ("blocks", "read_inline"),
}
__all__ = names(_TABLE)
__getattr__ = exports(__name__, _TABLE)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names, typed, for mypy (`as`: re-exported)
    from auger.commands.file_finder import project_files as project_files
    from auger.commands.file_finder import rank as rank
    from auger.commands.markdown import blocks as blocks
    from auger.commands.markdown import read_inline as read_inline
    from auger.commands.mentions import MentionError as MentionError
    from auger.commands.mentions import attach as attach
    from auger.commands.mentions import attach_image as attach_image
