"""Balance reports: `fisim report DIR` turns a sweep's results store into a self-contained HTML
page, a Markdown summary and the figures as files. Reports read only the store.

    data       the store read and checked; cells pooled into the tables behind each figure
    figures    the matplotlib figures (Agg canvas)
    sections   what the report says: sections with figures, tables and captions
    html       the Jinja2 template (templates/report.html.j2) rendered with embedded figures
    markdown   the Markdown summary
    tables     the tables as CSV or JSON files
"""
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


def write_report(directory, out=None, formats=DEFAULT_FORMATS, title=None, warn=None):
    """Read the results store `directory` and write the report into `out` (default
    directory/report): report.html, report.md, figures/<section>.png|svg, tables/<section>-<n>.csv
    and tables.json, as `formats` asks.
    Returns the paths written. A missing or damaged store raises fisim.errors.StoreError; a store
    whose sweep has not finished gives a report with a warning, also passed to `warn(text)`."""
    from fisim.files import atomic_write
    from fisim.reporting import data, figures, html, markdown, sections, tables
    sweep = data.read(directory)
    report = sections.build(sweep, title)
    for text in report.warnings:
        if warn:
            warn(text)
    out = Path(out) if out is not None else Path(directory) / "report"
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
        text = html.render(report, images, sweep.name)
        atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
        written.append(path)
    if "md" in formats:
        path = out / "report.md"
        text = markdown.render(report, files, sweep.name)
        atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))
        written.append(path)
    if "csv" in formats:
        written += tables.write_csv(report, out)
    if "json" in formats:
        written.append(tables.write_json(report, out))
    return written
