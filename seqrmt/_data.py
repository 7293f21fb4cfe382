"""The tables shipped in ``seqrmt/data``: CSV with ``# key: value`` header comments, read with the
``csv`` module only (:func:`read_csv`, re-exported by :mod:`seqrmt.validation`), and the loader of a
shipped table by its file name (:func:`_load`), used by the modules of the formulas and by
:mod:`seqrmt.validation` alike.  Imports nothing of :mod:`seqrmt`: the lowest layer."""

from __future__ import annotations

import csv


def _parse(value: str):
    if value == "":
        return ""
    if value in ("True", "False"):
        return value == "True"
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return value


def read_csv(source) -> tuple[list[dict], dict]:
    """Read a table written by :func:`~seqrmt.validation.to_csv` (a path or a file-like object).

    Returns ``(rows, meta)``: numbers, booleans and strings restored; ``meta`` from the
    ``# key: value`` comment lines.
    """
    if hasattr(source, "read"):
        text = source.read()
    else:
        with open(source, newline="") as fh:
            text = fh.read()
    meta, body = {}, []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, val = line[1:].strip().partition(":")
            meta[key.strip()] = val.strip()
        elif line.strip():
            body.append(line)
    rd = csv.DictReader(body)
    rows = [{k: _parse(v) for k, v in r.items()} for r in rd]
    return rows, meta


def _load(name: str) -> tuple[list[dict], dict]:
    """The table ``seqrmt/data/<name>`` read by :func:`read_csv`: ``(rows, meta)``."""
    from importlib import resources

    with resources.files("seqrmt").joinpath("data", name).open("r", newline="") as fh:
        return read_csv(fh)
