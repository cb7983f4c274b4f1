# SPDX-License-Identifier: GPL-2.0
"""The report's prose, kept in prose.txt (its head says the format)."""
import os
import re

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prose.txt")


def load(path=PATH):
    """{name: [paragraph, ...]} of the template at @path."""
    with open(path) as f:
        chunks = re.split(r"^@", f.read(), flags=re.M)[1:]
    blocks = {}
    for chunk in chunks:
        name, _, body = chunk.partition("\n")
        if name.strip() in blocks:
            raise ValueError("%s: block @%s twice" % (path, name.strip()))
        blocks[name.strip()] = [
            " ".join(line.strip() for line in para.splitlines())
            for para in re.split(r"\n\s*\n", body) if para.strip()]
    return blocks


BLOCKS = load()


def lines(name, **fields):
    """Block @name, {fields} filled in: its paragraphs, each one line,
    with an empty line between two."""
    out = []
    for para in BLOCKS[name]:
        out += ([""] if out else []) + [para.format(**fields)]
    return out


def text(name, **fields):
    """Block @name, a single paragraph, as one line."""
    para, = lines(name, **fields)
    return para
