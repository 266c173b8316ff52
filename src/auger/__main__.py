"""`python -m auger`."""

from auger.cli import main

raise SystemExit(main())
