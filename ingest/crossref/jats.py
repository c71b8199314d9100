"""Crossref's titles and JATS abstracts -> plain text: markup stripped, whitespace collapsed,
MathML kept readable (x^2, x_i), HTML entities decoded.

Crossref passes on what publishers deposit: JATS (<jats:p>, <jats:italic>, <jats:sec>),
HTML-ish inline tags in titles (<i>, <scp>, <sub>), and now and then MathML. Inline tags join
their neighbours without a space ("<scp>T</scp>reebase" is "Treebase"); blocks (paragraphs,
sections, titles) are separated by one. A leading "Abstract" heading is dropped.
"""

from __future__ import annotations

import html
import re

from lxml import etree

_NAMESPACES = {
    "jats": "http://www.ncbi.nlm.nih.gov/JATS1",
    "mml": "http://www.w3.org/1998/Math/MathML",
    "xlink": "http://www.w3.org/1999/xlink",
    "xsi": "http://www.w3.org/2001/XMLSchema-instance",
    "ali": "http://www.niso.org/schemas/ali/1.0/",
}
_ROOT_OPEN = "<root " + " ".join(f'xmlns:{p}="{u}"' for p, u in _NAMESPACES.items()) + ">"
_BLOCKS = frozenset(
    {"p", "sec", "title", "list-item", "abstract", "trans-abstract", "disp-quote", "br", "div"}
)
_XML_ENTITIES = frozenset({"lt", "gt", "amp", "quot", "apos"})
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_TAG = re.compile(r"<[^>]+>")
_SPACES = re.compile(r"\s+")
_PARSER = etree.XMLParser(recover=True, resolve_entities=False, no_network=True)


def _html_entities_to_text(text: str) -> str:
    """&nbsp; and friends are HTML, not XML: decode them before the XML parser sees them."""
    return _ENTITY.sub(
        lambda m: m.group(0) if m.group(1) in _XML_ENTITIES else html.unescape(m.group(0)), text
    )


def markup_to_text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        return ""
    if "<" not in value:
        return _SPACES.sub(" ", html.unescape(value)).strip()
    try:
        root = etree.fromstring(
            f"{_ROOT_OPEN}{_html_entities_to_text(value)}</root>", parser=_PARSER
        )
    except (etree.XMLSyntaxError, ValueError):
        root = None
    if root is None:
        return _SPACES.sub(" ", html.unescape(_TAG.sub(" ", value))).strip()
    parts: list[str] = [root.text or ""]
    _walk(root, parts, top=True)
    return _SPACES.sub(" ", "".join(parts)).strip()


def _localname(element: etree._Element) -> str:
    tag = element.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _walk(element: etree._Element, parts: list[str], *, top: bool = False) -> None:
    for child in element:
        name = _localname(child)
        if (
            name == "title"
            and top
            and not "".join(parts).strip()
            and (child.text or "").strip().lower() == "abstract"
        ):
            parts.append(child.tail or "")
            continue
        if name in _BLOCKS:
            parts.append(" ")
        if name == "math":
            parts.append(_math_text(child))
        elif isinstance(child.tag, str):
            parts.append(child.text or "")
            _walk(child, parts)
        if name in _BLOCKS:
            parts.append(" ")
        parts.append(child.tail or "")


def _math_text(element: etree._Element) -> str:
    """MathML as a reader would type it: superscripts with ^, subscripts with _, fractions a/b."""
    name = _localname(element)
    children = [c for c in element if isinstance(c.tag, str)]
    if name == "annotation" or name == "annotation-xml":
        return ""
    if name in ("mi", "mn", "mo", "mtext", "ms"):
        return (element.text or "").strip()
    texts = [_math_text(c) for c in children]
    if name == "msup" and len(texts) == 2:
        return f"{texts[0]}^{texts[1]}"
    if name == "msub" and len(texts) == 2:
        return f"{texts[0]}_{texts[1]}"
    if name == "msubsup" and len(texts) == 3:
        return f"{texts[0]}_{texts[1]}^{texts[2]}"
    if name == "mfrac" and len(texts) == 2:
        return f"{texts[0]}/{texts[1]}"
    if name == "msqrt":
        return f"√({''.join(texts)})"
    if name == "semantics":
        return texts[0] if texts else ""
    return "".join(texts)
