"""``python -m attnrepro``: the command line, as the ``attnrepro`` script runs it."""

from .cli import main

raise SystemExit(main())
