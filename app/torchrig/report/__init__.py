"""The PDF build sheet / quote: document model, renderer, charts and export command.

:mod:`~torchrig.report.sheet` says what a sheet contains, :mod:`~torchrig.report.assemble`
fills it from the core objects, :mod:`~torchrig.report.pdf` draws it with reportlab. Nothing
here imports Qt; reportlab is imported only when this package is used.
"""
