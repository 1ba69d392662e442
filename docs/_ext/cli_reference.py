"""The `.. cli-reference::` directive: the command line's reference, built from
`wv_engine.cli.build_parser()` at every docs build, so it cannot drift from
the flags.

For the program and each subcommand it emits a section with the usage
(argparse's own, at a fixed width), the description and a table of the
arguments: name and value, default, help (with the choices). Each flag is
registered as a Sphinx program option, so a page can link one with
:option:`wv-engine word2vec --dim` and it appears in the objects inventory.

Only the standard argparse attributes are read (`_actions`, the subparsers
action's `choices` and `_choices_actions`), as sphinx-argparse does.

The `.. reference-flags::` directive (`:table: module.NAME`) draws a
reference tool's flags as wv-engine reads them, from the same table
(wv_engine.cli.reference)."""

from __future__ import annotations

import argparse
import functools
import importlib

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

USAGE_WIDTH = 88  # columns of the usage blocks, whatever the terminal


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in the parser's order."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((name, helps.get(name, ""), sub))
    return found


def _expand(action: argparse.Action, prog: str) -> str:
    """The help text with argparse's %(default)s-style fields filled in."""
    text = action.help or ""
    if "%" not in text:
        return text
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    params["prog"] = prog
    if params.get("choices") is not None:
        params["choices"] = ", ".join(str(c) for c in params["choices"])
    return text % params


def _value(action: argparse.Action) -> str:
    """What follows the flag on the command line (empty for a switch)."""
    if action.nargs == 0:
        return ""
    if action.metavar is not None:
        metavar = action.metavar
    elif action.choices is not None:  # as argparse writes it
        metavar = "{" + ",".join(str(c) for c in action.choices) + "}"
    else:
        metavar = action.dest.upper() if action.option_strings else action.dest
    if action.nargs in ("+", "*"):
        return f"{metavar} [{metavar} ...]"
    if action.nargs == "?":
        return f"[{metavar}]"
    return str(metavar)


def _default(action: argparse.Action) -> str:
    if action.required:
        return "required"
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS):
        return ""
    return repr(action.default) if isinstance(action.default, str) else str(action.default)


def _cell(*children: nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    entry.extend(children)
    return entry


def _text_paragraph(text: str) -> nodes.paragraph:
    return nodes.paragraph(text, text)


def _three_columns(widths: tuple[int, int, int], titles: tuple[str, str, str]) -> tuple[nodes.table, nodes.tbody]:
    """An empty table of the arguments' layout, and the body its rows go in."""
    table = nodes.table(classes=["cli-arguments"])
    group = nodes.tgroup(cols=3)
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += nodes.row("", *(_cell(_text_paragraph(t)) for t in titles))
    group += head
    body = nodes.tbody()
    group += body
    return table, body


class CliReference(SphinxDirective):
    """Usage, description and a table of arguments for a parser and each of its subcommands."""

    required_arguments = 0
    has_content = False
    option_spec = {
        "module": directives.unchanged,  # the module holding build_parser (default: wv_engine.cli)
        "function": directives.unchanged,  # default: build_parser
    }

    def run(self) -> list[nodes.Node]:
        module = importlib.import_module(self.options.get("module", "wv_engine.cli"))
        parser = getattr(module, self.options.get("function", "build_parser"))()
        out = [self._command(parser.prog, parser.description or "", parser, top=True)]
        for name, summary, sub in _subcommands(parser):
            out.append(self._command(sub.prog, sub.description or summary, sub))
        return out

    def _command(self, prog: str, description: str, parser: argparse.ArgumentParser, top: bool = False):
        section_id = nodes.make_id(prog)
        section = nodes.section(ids=[section_id], names=[section_id])
        section += nodes.title(prog, "", nodes.literal(prog, prog))
        if description:
            section += _text_paragraph(description)
        parser.formatter_class = functools.partial(argparse.HelpFormatter, width=USAGE_WIDTH)
        usage = parser.format_usage().strip()
        section += nodes.literal_block(usage, usage, language="none")
        section += self._table(prog, parser)
        if top:
            commands = _subcommands(parser)
            if commands:
                items = nodes.bullet_list()
                for name, summary, sub in commands:
                    ref = nodes.reference("", "", nodes.literal(sub.prog, sub.prog), refid=nodes.make_id(sub.prog))
                    para = nodes.paragraph()
                    para += ref
                    para += nodes.Text(f": {summary}" if summary else "")
                    items += nodes.list_item("", para)
                section += _text_paragraph("Commands:")
                section += items
        # an explicit target: a label (`cli.md#wv-engine-glove`, {ref}`wv-engine-glove`) for each command
        self.state.document.note_explicit_target(section, section)
        return section

    def _table(self, prog: str, parser: argparse.ArgumentParser) -> nodes.table:
        std = self.env.get_domain("std")
        table, body = _three_columns((30, 14, 56), ("argument", "default", "description"))
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
                continue
            value = _value(action)
            names = action.option_strings or [value]
            shown = ", ".join(f"{n} {value}".strip() if action.option_strings else n for n in names)
            name_para = nodes.paragraph()
            if action.option_strings:
                # a target for each flag: :option:`wv-engine glove --dim` links here
                target_id = nodes.make_id(f"{prog} {action.option_strings[-1]}")
                name_para["ids"].append(target_id)
                for option in action.option_strings:
                    std.add_program_option(prog, option, self.env.docname, target_id)
            name_para += nodes.literal(shown, shown)
            help_text = _expand(action, prog)
            if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
                choices = ", ".join(str(c) for c in action.choices)
                help_text = f"{help_text}; one of: {choices}" if help_text else f"one of: {choices}"
            default = _default(action)
            body += nodes.row("", _cell(name_para),
                              _cell(_text_paragraph(default)) if default else _cell(),
                              _cell(_text_paragraph(help_text)) if help_text else _cell())
        return table


class ReferenceFlags(SphinxDirective):
    """A table of a reference tool's flags as wv-engine reads them (a table
    of wv_engine.cli.reference.flags.Flag): `:table: module.NAME`."""

    required_arguments = 0
    has_content = False
    option_spec = {"table": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        module_name, _, attribute = self.options["table"].rpartition(".")
        flags = getattr(importlib.import_module(module_name), attribute)
        table, body = _three_columns((24, 14, 62), ("flag", "default", "description"))
        for name, flag in flags.items():
            shown = name if flag.kind is None else f"{name} {flag.kind.__name__.upper()}"
            default = "" if flag.kind is None or flag.default is None else str(flag.default)
            body += nodes.row("", _cell(nodes.paragraph("", "", nodes.literal(shown, shown))),
                              _cell(_text_paragraph(default)) if default else _cell(),
                              _cell(_text_paragraph(flag.help)) if flag.help else _cell())
        return [table]


def setup(app):
    app.add_directive("cli-reference", CliReference)
    app.add_directive("reference-flags", ReferenceFlags)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
