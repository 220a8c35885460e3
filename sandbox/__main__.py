"""`python -m sandbox <command>`: the sandbox's manage.py (migrate, sandbox_seed, runserver 8001, ...)."""

import os
import sys


def main() -> None:
    # Its own settings, whatever the shell says: the storefront's DJANGO_SETTINGS_MODULE must not leak in.
    os.environ["DJANGO_SETTINGS_MODULE"] = "sandbox.settings"
    from django.core.management import execute_from_command_line

    execute_from_command_line([f"{sys.executable} -m sandbox", *sys.argv[1:]])


if __name__ == "__main__":
    main()
