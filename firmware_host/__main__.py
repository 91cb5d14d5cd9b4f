"""``python -m firmware_host`` is the ``tablemate`` command."""

import sys

from firmware_host.cli.main import main

sys.exit(main())
