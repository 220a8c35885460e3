#!/usr/bin/env python
"""The sandbox's manage.py: `sandbox/manage.py migrate`, `sandbox/manage.py runserver 8001`, and so on."""

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run as a script, this folder is on the path, not the repository that holds the `sandbox` package.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from sandbox.__main__ import main

    main()
