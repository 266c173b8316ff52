"""`python -m auger`."""

import os
import sys

# `python -m` puts the working directory first on sys.path: a project's files must never be
# imported as modules (or found as installed packages), so it is taken off (SPEC §7).
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from auger.cli import main

raise SystemExit(main())
