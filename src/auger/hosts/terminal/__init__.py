"""The interactive terminal: `auger` with no `-p` (entry point: `app.run_terminal`)."""
