"""Reports: `fisim report DIR` turns a sweep's results store (or a ladder's or a design's directory) into a
self-contained HTML page, a Markdown summary, the figures and the tables as data. Reports read
only the stores.

    document   what a report is: sections of text, figures and tables declared once as numbers
    data       a sweep's store read and checked; cells pooled into the tables behind each figure
    sections   what a sweep's report says
    ladder     what a ladder's report says (fisim.skill)
    design     what a design's report says (fisim.designing)
    agreement  whether two policies rank a sweep's cells alike (fisim.rankings), as sections
    stronger   whether a stronger player keeps a sweep's conclusions (fisim.stronger), as a section
    figures    the matplotlib figures (Agg canvas)
    html       the Jinja2 template (templates/report.html.j2) rendered with embedded figures
    markdown   the Markdown summary
    text       the report as plain text, for a terminal
    tables     the tables as CSV or JSON files
"""
import os
from pathlib import Path

FORMATS = ("html", "md", "png", "svg", "csv", "json")
DEFAULT_FORMATS = ("html", "md", "png")


def parse_formats(text):
    """'html,md,png' -> ('html', 'md', 'png'); ConfigError naming a bad format."""
    from fisim.errors import ConfigError
    items = [t.strip().lower() for t in text.split(",") if t.strip()]
    if not items:
        raise ConfigError(f"no report format given; choose from: {', '.join(FORMATS)}")
    for item in items:
        if item not in FORMATS:
            raise ConfigError(f"unknown report format {item!r}; choose from: {', '.join(FORMATS)}")
    return tuple(dict.fromkeys(items))


def write_report(directories, out=None, formats=DEFAULT_FORMATS, title=None, warn=None, agreements=(),
                 baseline=None, disjoint=False, notes=()):
    """Read the results of `directories` (one, or a list: sweep stores and ladder directories) and
    write their report into `out` (default: the first directory's report/): report.html,
    report.md, figures/<section>.png|svg, tables/<name>.csv and tables.json, as `formats` asks.
    With `agreements` (pairs of policies), a sweep store gives whether each pair ranks its cells
    alike (against `baseline`, and on `disjoint` deals too) instead of its balance report; `notes`
    are paragraphs set under the title. Returns the paths written. A missing or damaged store
    raises fisim.errors.StoreError; a store whose sweep has not finished gives a report with a
    warning, also passed to `warn(text)`."""
    if isinstance(directories, (str, os.PathLike)):
        directories = [directories]
    elif not isinstance(directories, (list, tuple)) or not directories:
        from fisim.errors import StoreError
        raise StoreError(f"a results directory is a path (a str or os.PathLike), not {directories!r}")
    report = build(directories, title, agreements, baseline, disjoint, notes)
    for text in report.warnings:
        if warn:
            warn(text)
    return write(report, out if out is not None else Path(directories[0]) / "report", formats)


LADDER_FORMATS = ("html", "md", "png", "csv")       # a ladder's report, DIR/report


def write_ladder(directory, order=()):
    """Write the report of a ladder's directory into DIR/report (LADDER_FORMATS), its policies in
    `order` (as asked, whatever order the store grew in); the Report, for the terminal."""
    from fisim.reporting import ladder
    report = ladder.build(directory, order)
    write(report, Path(directory) / "report", LADDER_FORMATS)
    return report


def build(directories, title=None, agreements=(), baseline=None, disjoint=False, notes=()):
    """The Report of `directories` (see write_report): each one's, in order, set in the first's."""
    from fisim.errors import ConfigError
    from fisim.reporting import agreement, data, design, ladder, sections, stronger
    from fisim.reporting.document import Report, slug
    parts = []
    for directory in directories:
        if ladder.is_ladder(directory):
            parts.append(ladder.build(directory))
            continue
        if design.is_design(directory):
            parts.append(design.build(directory))
            continue
        sweep = data.read(directory)
        if not agreements:
            parts.append(sections.build(sweep))
            stronger.add_to(parts[-1], directory, sweep)
            continue
        by = agreement.ranked_axis(sweep.cells)
        if by is None:
            raise ConfigError(f"--agreement: {directory} varies no setting to rank its cells by")
        found = agreement.sections(directory, by, agreements, baseline, disjoint)
        parts.append(Report(f"Do the policies rank the {agreement.NOUNS[by]} alike?", sections.subtitle(sweep),
                            sections.overview(sweep), [line for s in found for line in s.glance],
                            sections.warnings(sweep), found, [sweep.name], "The store"))
    seen = set()
    for part in parts:                  # a section that another store's report has too is named for its store
        for s in part.sections:
            if s.id in seen:
                s.id, s.title = f"{s.id}-{slug(part.sources[0])}", f"{s.title} ({part.sources[0]})"
            seen.add(s.id)
    first, rest = parts[0], parts[1:]
    return Report(title or first.title, first.subtitle,
                  first.overview + [(f"Store “{r.sources[0]}”", r.subtitle) for r in rest],
                  [h for r in parts for h in r.highlights], [w for r in parts for w in r.warnings],
                  [s for r in parts for s in r.sections], [n for r in parts for n in r.sources], first.overview_title,
                  list(notes))


def write(report, out, formats=DEFAULT_FORMATS):
    """Write a Report into the directory `out` in `formats`; the paths written."""
    from fisim.files import atomic_write
    from fisim.reporting import figures, html, markdown, tables
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    images, files = {}, {}
    for s in report.sections:
        if s.figure is None:
            continue
        rendered = {}
        for fmt in ("png", "svg"):
            if fmt in formats or (fmt == "png" and "html" in formats and "svg" not in formats):
                rendered[fmt] = figures.to_bytes(s.figure, fmt)
        for fmt in ("png", "svg"):
            if fmt in formats:
                path = out / "figures" / f"{s.id}.{fmt}"
                path.parent.mkdir(exist_ok=True)
                atomic_write(path, lambda p, data=rendered[fmt]: p.write_bytes(data))
                written.append(path)
                files.setdefault(s.id, f"figures/{s.id}.{fmt}")
        if "html" in formats:
            kind = "png" if "png" in rendered else "svg"
            size = [round(v * 110) for v in s.figure.get_size_inches()]
            images[s.id] = html.embed(kind, rendered[kind], size)
    if "html" in formats:
        path = out / "report.html"
        text = html.render(report, images)
        atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
        written.append(path)
    if "md" in formats:
        path = out / "report.md"
        text = markdown.render(report, files)
        atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
        written.append(path)
    if "csv" in formats:
        written += tables.write_csv(report, out)
    if "json" in formats:
        written.append(tables.write_json(report, out))
    return written
