"""Open a build from either of the files TorchRig writes for one: a build ``.json`` or a sheet
PDF, whose attached build the PDF itself offers to be opened ("TorchRig can open this PDF as a
build"). The CLI (``check``, ``export``) and the GUI (File → Open, the Build page, drag and
drop) all open builds through :func:`load_build_or_sheet`, so they accept the same files.
"""

from __future__ import annotations

from pathlib import Path

from torchrig.builds.build import Build, load_build
from torchrig.catalog.model import Catalog
from torchrig.file_kinds import is_pdf


def load_build_or_sheet(path: str | Path, catalog: Catalog | None = None) -> Build:
    """The build in a build file, or the build attached to a TorchRig sheet PDF.

    Raises :class:`~torchrig.errors.InputError` naming the file, as :func:`load_build` does."""
    path = Path(path)
    if not is_pdf(path):
        return load_build(path, catalog)
    from torchrig.report.pdf_files import extract_build_json

    where = f"{path} (attached build)"
    build = Build.from_dict(extract_build_json(path), where=where)
    if catalog is None:
        from torchrig.catalog import load_catalog

        catalog = load_catalog()
    build.check_parts(catalog, where=str(path))
    return build
