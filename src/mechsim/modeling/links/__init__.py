"""I/O links (SPEC C13): elements that exchange a model's signals and inputs with other programs and devices
during a run, one module per kind (base.py: the contract). LINK_KINDS is the registry: Model.add_link, the model
file's ``links:`` section and the command line loop over it; a new kind is a module and a line here."""
from ...errors import ModelError
from .base import Link
from .udp import UDPLink

LINK_KINDS = (UDPLink,)
LINK_CLASSES = {cls.kind: cls for cls in LINK_KINDS}


def make_link(name, kind, **options):
    """A link of ``kind`` ("udp") named ``name`` from a model file's entry."""
    if kind not in LINK_CLASSES:
        raise ModelError(f"link '{name}': unknown kind {kind!r}; use one of {', '.join(LINK_CLASSES)}")
    return LINK_CLASSES[kind](name, **options)


__all__ = ["LINK_CLASSES", "LINK_KINDS", "Link", "UDPLink", "make_link"]
