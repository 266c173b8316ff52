"""The engine under the Runtime: state, stream, turn, attempt, retry, dispatch, compaction.

Each part takes the narrow dependencies it needs; nothing here imports the Runtime.
"""
