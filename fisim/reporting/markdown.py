"""The Markdown summary: the same sections and numbers as the HTML report, with the figures as
files beside it (figures/<section>.png or .svg), readable on a repository page."""
import re

from fisim.version import VERSION


def slug(title):
    """The anchor a repository page gives a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def _cell(value):
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(t):
    lines = [f"**{t.caption}**", "",
             "| " + " | ".join(_cell(c) for c in t.columns) + " |",
             "|" + "|".join(":--" if i == 0 else "--:" for i in range(len(t.columns))) + "|"]
    for i, row in enumerate(t.rows):
        mark = t.marks[i] if t.marks else ""
        cells = [_cell(v) for v in row]
        if mark:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(report, figure_files, store_name):
    """Markdown text of a Report; `figure_files` maps section id -> relative path of its figure."""
    out = [f"# {report.title}", "", report.subtitle, ""]
    for w in report.warnings:
        out += [f"> **Warning:** {w}", ""]
    out += ["> Read the numbers as the computer team's, not a human team's: a policy (a program) played every game. "
            "Its win rates show how the game's settings compare, not how often people win.", "",
            "## The sweep", "", "| | |", "|:--|:--|"]
    out += [f"| {label} | {_cell(value)} |" for label, value in report.overview]
    out += ["", "**At a glance**", ""] + [f"- {h}" for h in report.highlights] + [""]
    out += ["Contents: " + " · ".join(f"[{s.title}](#{slug(s.title)})" for s in report.sections), ""]
    for s in report.sections:
        out += [f"## {s.title}", "", s.text, ""]
        if s.id in figure_files:
            out += [f"![{s.title}]({figure_files[s.id]})", ""]
        out += [f"*{s.caption}*", ""]
        for t in s.tables:
            if t.markdown:
                out += [table(t), ""]
        if s.note:
            out += [s.note, ""]
    out += ["---", "", f"Made by fisim {VERSION} from the results store “{store_name}”; "
            "`fisim report` rebuilds it from the store without playing a game.", ""]
    return "\n".join(out)
