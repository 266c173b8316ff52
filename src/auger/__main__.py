"""`python -m auger`."""

import sys

# `python -m` puts the working directory first on sys.path (unless -P): a project's files must
# never be imported as modules or found as installed packages (SPEC §7), so it is taken off.
if not sys.flags.safe_path and sys.path:
    del sys.path[0]

from auger.cli import main

raise SystemExit(main())
