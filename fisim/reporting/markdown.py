"""The Markdown summary: the same sections and numbers as the HTML report, with the figures as
files beside it (figures/<section>.png or .svg), readable on a repository page."""
import re

from fisim.version import VERSION


def slug(title):
    """The anchor a repository page gives a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def sources(report):
    """'the results store “teams”', or '... stores “ladder”, “teams”'."""
    names = ", ".join(f"“{name}”" for name in report.sources)
    return f"the results store{'s' if len(report.sources) > 1 else ''} {names}"


def _cell(value):
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(t):
    people = t.people
    lines = [f"**{t.caption}**", "",
             "| " + " | ".join(_cell(c) for c in people.headings) + " |",
             "|" + "|".join(":--" if i == 0 else "--:" for i in range(len(people.headings))) + "|"]
    for i, row in enumerate(people.rows):
        mark = people.marks[i] if people.marks else ""
        cells = [_cell(v) for v in row]
        if mark:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(report, figure_files):
    """Markdown text of a Report; `figure_files` maps section id -> relative path of its figure."""
    out = [f"# {report.title}", "", report.subtitle, ""]
    for note in report.notes:
        out += [note, ""]
    for w in report.warnings:
        out += [f"> **Warning:** {w}", ""]
    out += ["> Read the numbers as the computer team's, not a human team's: a policy (a program) played every game. "
            "Its win rates show how the game's settings compare, not how often people win.", "",
            f"## {report.overview_title}", "", "| | |", "|:--|:--|"]
    out += [f"| {label} | {_cell(value)} |" for label, value in report.overview]
    out += ["", "**At a glance**", ""] + [f"- {h}" for h in report.highlights] + [""]
    out += ["Contents: " + " · ".join(f"[{s.title}](#{slug(s.title)})" for s in report.sections), ""]
    for s in report.sections:
        out += [f"## {s.title}", "", s.text, ""]
        if s.id in figure_files:
            out += [f"![{s.title}]({figure_files[s.id]})", ""]
        out += [f"*{s.caption}*", ""]
        for t in s.tables:
            if t.markdown and t.columns:
                out += [table(t), ""]
        if s.note:
            out += [s.note, ""]
    out += ["---", "", f"Made by fisim {VERSION} from {sources(report)}; `fisim report` rebuilds it from "
            f"{'them' if len(report.sources) > 1 else 'the store'} without playing a game.", ""]
    return "\n".join(out)
