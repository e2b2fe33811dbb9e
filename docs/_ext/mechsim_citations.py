"""Citations in the text ("Wood & Kennedy 2003, §6", "Khan, Tang & Krovi (2006)", "Gillespie et al. 2005")
become links to their entry on the references page (references.rst, one label per work).

Only running text is linked, never code; the references page itself is left alone.
"""
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform

_AND = r"(?:&|and)"
_YEAR = r"(?:,? \({}\)|,? {})?"
# label on references.rst -> how the text names the work (the year optional where the authors are unique)
CITED = {
    "wood-kennedy-2003": rf"Wood {_AND} Kennedy" + _YEAR.format(2003, 2003),
    "del-citto-2005": rf"Del Citto(?:, Pennestrì {_AND} Vita| et al\.)" + _YEAR.format(2005, 2005),
    "schlotter-2003": r"Schlotter" + _YEAR.format(2003, 2003),
    "brezina-2008": r"Březina et al\." + _YEAR.format(2008, 2008),
    "gillespie-2005": r"Gillespie et al\." + _YEAR.format(2005, 2005),
    "khan-2006": rf"Khan, Tang {_AND} Krovi" + _YEAR.format(2006, 2006),
    "featherstone-2008": r"Featherstone" + _YEAR.format(2008, 2008),
    "hairer-wanner-1996": rf"Hairer {_AND} Wanner" + _YEAR.format(1996, 1996),
    "gustafsson-1994": r"Gustafsson" + _YEAR.format(1994, 1994),
    "han-gilmore-1993": rf"Han {_AND} Gilmore" + _YEAR.format(1993, 1993),
    "smith-1991": r"Smith(?:'s)? \(1991\)|Smith 1991",
    "hunt-crossley-1975": rf"Hunt[–-]Crossley|Hunt {_AND} Crossley" + _YEAR.format(1975, 1975),
    "pfeiffer-glocker-1996": rf"Pfeiffer {_AND} Glocker" + _YEAR.format(1996, 1996),
    "bayo-1988": rf"Bayo, García de Jalón {_AND} Serna" + _YEAR.format(1988, 1988),
    "bayo-ledesma-1996": rf"Bayo {_AND} Ledesma" + _YEAR.format(1996, 1996),
    "gonzalez-2006": r"González et al\." + _YEAR.format(2006, 2006),
}
PATTERN = re.compile("|".join(f"(?P<{label.replace('-', '_')}>{text})" for label, text in CITED.items()))
SKIP = (nodes.literal, nodes.literal_block, nodes.reference, nodes.title, addnodes.pending_xref,
        nodes.raw, addnodes.desc_signature)


class LinkCitations(SphinxTransform):
    default_priority = 500

    def apply(self):
        if self.env.docname == "references":
            return
        for text in list(self.document.findall(nodes.Text)):
            if any(isinstance(parent, SKIP) for parent in _ancestors(text)):
                continue
            value = str(text)
            matches = list(PATTERN.finditer(value))
            if not matches:
                continue
            pieces, at = [], 0
            for match in matches:
                label = match.lastgroup.replace("_", "-")
                pieces.append(nodes.Text(value[at:match.start()]))
                xref = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=label,
                                             refexplicit=True, refwarn=True, refdoc=self.env.docname)
                xref += nodes.inline(match.group(0), match.group(0))
                pieces.append(xref)
                at = match.end()
            pieces.append(nodes.Text(value[at:]))
            text.parent.replace(text, [p for p in pieces if not (isinstance(p, nodes.Text) and not str(p))])


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def setup(app):
    app.add_transform(LinkCitations)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
