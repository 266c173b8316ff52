"""Configuration: paths, settings files and model resolution, all from injected env and home."""
