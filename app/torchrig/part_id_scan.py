"""Whether a part id is surely not in the catalog, read from the catalog's files as bytes
(issue 27).

``torchrig plan --gpu ID`` with a mistyped ID used to load and check the whole catalog (a
quarter of that process) only to say the id is unknown. A part's id is written in its file
as the JSON string ``"ID"``, so an id found as such in none of the catalog's files is in no
part; the catalog package is not imported for it. The scan can only answer "surely unknown":
where it finds the id, cannot read the folder, or meets ``\\u`` escapes (which could spell an
id another way), the caller loads the catalog as before and that decides.
"""

from __future__ import annotations

import os


def surely_unknown_part(part_id: str) -> bool:
    """True when ``part_id`` appears as a JSON string in none of the catalog's ``*.json``
    files (in the resources folder :func:`torchrig.catalog.load_catalog` reads by default)."""
    from torchrig.resources import resources_dir

    folder = os.path.join(resources_dir(), "catalog")
    needle = f'"{part_id}"'.encode()
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        if not names:
            return False  # no catalog here: the loader says what is wrong
        for name in names:
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            if needle in data or b"\\u" in data:
                return False
    except OSError:
        return False
    return True
