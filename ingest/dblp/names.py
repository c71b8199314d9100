"""dblp's conventions inside its BibTeX exports. Pure functions.

dblp names every person uniquely: when two people share a name it appends a four-digit
homonym number ("Wei Wang 0001", "Wei Wang 0002"). Such a numbered name is an identity key,
as an ORCID iD is: two different numbers are two people, the same number one person. A name
without a number is NOT an identity key (dblp numbers only the names it knows are shared, and
an un-numbered name may still be several people), so only numbered names are kept as keys.

dblp's record keys ("DBLP:conf/spire/BastMW06", or the biburl .../rec/conf/spire/BastMW06.bib)
identify the publication in dblp; the mapper keeps them as the work's ("dblp", key) id.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from ingest.records import AuthorRef

_HOMONYM = re.compile(r"^(?P<name>.*\S)\s+(?P<number>\d{4})$")
_BIBURL_KEY = re.compile(
    r"dblp(?:\.uni-trier)?\.(?:org|de)/rec/(?:bib\d?/)?(?P<key>[^?#\s]+?)(?:\.bib)?$"
)
# AuthorRef.dblp is requested from the records' owner (/work/notes/records_requests.md, 5);
# until it exists the number is still stripped from the displayed name, the key is dropped.
_AUTHOR_REF_HAS_DBLP = "dblp" in {f.name for f in dataclasses.fields(AuthorRef)}


def split_homonym(name: str) -> tuple[str, str | None]:
    """'Wei Wang 0001' -> ('Wei Wang', 'Wei Wang 0001'); 'Michael Ley' -> ('Michael Ley', None)."""
    name = " ".join(name.split())
    match = _HOMONYM.match(name)
    if match is None:
        return name, None
    return match.group("name"), name


def is_dblp_entry(key: str, fields: Mapping[str, str]) -> bool:
    """An entry exported by dblp: its key, its bibsource or its biburl say so."""
    return (
        key.upper().startswith("DBLP:")
        or "dblp" in fields.get("bibsource", "").lower()
        or _BIBURL_KEY.search(fields.get("biburl", "").strip()) is not None
    )


def dblp_record_key(key: str, fields: Mapping[str, str]) -> str | None:
    """The dblp key of the publication: 'DBLP:conf/spire/BastMW06' -> 'conf/spire/BastMW06',
    else read from the biburl; None when the entry names none."""
    if key.upper().startswith("DBLP:"):
        return key[len("DBLP:") :] or None
    match = _BIBURL_KEY.search(fields.get("biburl", "").strip())
    return match.group("key") if match else None


def author_ref_identity(dblp_name: str | None) -> dict[str, Any]:
    """The AuthorRef keyword arguments that carry the dblp identity key, if it has a field."""
    if dblp_name and _AUTHOR_REF_HAS_DBLP:
        return {"dblp": dblp_name}
    return {}
