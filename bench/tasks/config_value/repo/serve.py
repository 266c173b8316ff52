"""Reads config/server.json and says what it would serve."""

import json
from pathlib import Path

config = json.loads(Path("config/server.json").read_text())
print(f"serving {config['static']['root']} on {config['host']}:{config['port']}")
