import sys

from progsim.cli import main

sys.exit(main())
