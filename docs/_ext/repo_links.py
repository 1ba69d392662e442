"""Links from a page to a file of the repository outside docs/.

The Markdown pages are read on the repository's web view too, where a link
such as [RESULTS.md](../benchmarks/RESULTS.md) works. The site holds only
docs/, so Sphinx (through MyST) would warn that the target is not a
document, or copy the file as a download. Here such a link becomes the
link's text followed by the file's path in the repository, in code, and no
warning: the reader knows which file is meant. Links to pages of the site
and links to files that do not exist are left alone (the latter still warn).
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx import addnodes


def _existing(base: Path, target: str) -> Path | None:
    """The file `target` names (a path, or a docname without its suffix), if it exists."""
    path = (base / target.split("#", 1)[0]).resolve()
    if path.is_file():
        return path
    for suffix in (".md", ".rst", ".txt"):
        candidate = path.with_name(path.name + suffix)
        if candidate.is_file():
            return candidate
    return None


def _replacement(link: nodes.Element, repo_path: str) -> nodes.Node:
    text = link.astext().strip()
    code = nodes.literal(repo_path, repo_path)
    if not text or text == repo_path:
        return code
    inline = nodes.inline()
    inline.extend(child.deepcopy() for child in link.children)
    inline += nodes.Text(" (")
    inline += code
    inline += nodes.Text(")")
    return inline


def rewrite_repo_links(app, doctree: nodes.document) -> None:
    env = app.env
    srcdir = Path(app.srcdir).resolve()
    repo = srcdir.parent
    docdir = Path(env.doc2path(env.docname)).resolve().parent
    for node in list(doctree.findall(addnodes.pending_xref)) + list(doctree.findall(addnodes.download_reference)):
        if node.get("reftype") != "myst":
            continue
        target = node.get("reftarget") or ""
        if isinstance(node, addnodes.pending_xref):
            if node.get("refdomain") != "doc" or target in env.found_docs:
                continue
            # a docname outside the source folder: absolute, or relative to it
            path = _existing(srcdir, target)
        else:
            path = _existing(docdir, target)
        if path is None or path.is_relative_to(srcdir) or not path.is_relative_to(repo):
            continue
        node.replace_self(_replacement(node, path.relative_to(repo).as_posix()))


def setup(app):
    app.connect("doctree-read", rewrite_repo_links)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
