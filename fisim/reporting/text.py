"""A report as plain text for a terminal: what `fisim ladder` and `fisim compare --agreement`
print. The same sections and tables as the Markdown report (its tables, not the HTML's details),
columns aligned, names to the left and numbers to the right; a paragraph is one line, as the
terminal wraps it."""
HUMAN = "Win rates are the computer team's (the policy named), not a human team's."


def table(t):
    """A table's caption and its rows, aligned."""
    headings, words, rows, _ = t.people
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headings)]

    def line(cells):
        return "  " + "  ".join(c.ljust(w) if words[i] or i == 0 else c.rjust(w)
                                for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [f"{t.caption}:", line(headings), *(line(row) for row in rows)]


def section(s):
    """A section: its title, text, caption, tables and note."""
    lines = [s.title, "=" * len(s.title), s.text, s.caption]
    for t in s.tables:
        if t.markdown and t.columns:
            lines += ["", *table(t)]
    if s.note:
        lines += ["", s.note]
    return lines


def render(report):
    """The whole report: its title, what it is made of, At a glance, then every section."""
    lines = [report.title, "", report.subtitle, ""]
    lines += [f"{label}: {value}" for label, value in report.overview]
    lines += ["", "At a glance:", *(f"- {h}" for h in report.highlights)]
    for s in report.sections:
        lines += ["", *section(s)]
    return "\n".join([*lines, "", HUMAN])


def render_sections(sections):
    """Sections alone (a report's part a command prints)."""
    return "\n\n".join("\n".join(section(s)) for s in sections) + "\n\n" + HUMAN
