"""The engine under the Runtime: the Engine (one session, owning its state, stream and bus) and
its parts — state, stream, runner, turn, attempt, retry, dispatch, compaction, sessions.

The dispatch, an attempt and a compaction are built with what they use; nothing here imports
the Runtime or calls it.
"""
