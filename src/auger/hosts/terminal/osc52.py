"""The terminal's own clipboard: OSC 52, xterm's "manipulate selection data"
(https://invisible-island.net/xterm/ctlseqs/ctlseqs.html); tmux takes it with
`set-clipboard on` and passes it on to the terminal outside."""

from __future__ import annotations

import base64


def copy_sequence(text: str) -> str:
    """The escape sequence that puts `text` on the terminal's clipboard (`c`)."""
    data = base64.b64encode(text.encode("utf-8", "replace")).decode("ascii")
    return f"\x1b]52;c;{data}\x07"
