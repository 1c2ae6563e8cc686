import sys

from hansa.cli import main

sys.exit(main())
