"""Extensions: the registrar they receive, and (later) discovery, trust and reload."""
