"""Context trimmer: send the model only the recent part of a long conversation.

Shows a `context` handler: it gets a copy of the messages one model call is about to send and
returns a shorter list, which replaces what that call sends. The stored conversation is not
touched. The cut moves forward to a user message, so no tool result loses its call.
Setting: `{"context_trimmer": {"keep": 40}}`.
"""


def extension(g):
    keep = g.setting("keep", 40)

    def trim(event):
        messages = event.messages
        for start in range(max(len(messages) - keep, 0), len(messages)):
            if messages[start].role == "user":
                return messages[start:] if start else None
        return None

    g.on("context", trim)
