"""Contacts (SPEC §3 ``add_contact``): the Contact element (contact.py) of a shape on a body (shapes/, one module
per kind) touching a surface on another body (surfaces/, one module per kind)."""
from .contact import (CONTACT_OPTIONS, CONTACT_SIGNALS, K_AXIS, K_CENTRE, K_DAMP, K_EXP, K_KIND, K_MU, K_NORMAL,
                      K_ORIGIN, K_RADIUS, K_SLIP, K_SRADIUS, K_STIFF, K_SURFACE, Contact)
from .shapes import SHAPE_KINDS
from .surfaces import SURFACE_KINDS

__all__ = ["CONTACT_OPTIONS", "CONTACT_SIGNALS", "K_AXIS", "K_CENTRE", "K_DAMP", "K_EXP", "K_KIND", "K_MU", "K_NORMAL",
           "K_ORIGIN", "K_RADIUS", "K_SLIP", "K_SRADIUS", "K_STIFF", "K_SURFACE", "Contact", "SHAPE_KINDS",
           "SURFACE_KINDS"]
