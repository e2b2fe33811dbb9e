"""python -m mechsim.bench: the speed suite (as mechsim bench)."""
import sys

from . import main

sys.exit(main(sys.argv[1:]))
