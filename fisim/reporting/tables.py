"""The report's tables as data: one CSV file per table (tables/<name>.csv, the name saying what
the table is) or all of them in one JSON file (tables.json). Numbers stand in their own columns, a
rate as a fraction beside its count, games and 95% interval (docs/report-tables.md), never as
the formatted text of the HTML and Markdown report."""
import json

DIGITS = 10         # enough for any rate of a store; drops float noise such as 14.889799999999999


def as_data(frame):
    """A table's numbers as written out: rounded to DIGITS decimals, so a mean of 14.8898 is not
    written 14.889799999999999 nor a zero 8.67e-19."""
    return frame.round(DIGITS)


def to_json(frame):
    """A table as JSON: a list of records, numbers as_data."""
    return as_data(frame).to_json(orient="records", indent=1, double_precision=DIGITS)


def data_tables(report):
    """(section id, Data) of every table of the report as data, in reading order."""
    return [(s.id, d) for s in report.sections for d in s.data]


def write_csv(report, out):
    """One CSV file per table, header first; returns the paths written."""
    written = []
    for _, d in data_tables(report):
        path = out / "tables" / f"{d.name}.csv"
        path.parent.mkdir(exist_ok=True)
        as_data(d.frame).to_csv(path, index=False)
        written.append(path)
    return written


def write_json(report, out):
    """Every table as {name, section, caption, rows} (rows: one object per row) in one JSON list;
    returns the path."""
    path = out / "tables.json"
    tables = [{"name": d.name, "section": sid, "caption": d.caption,
               "rows": json.loads(to_json(d.frame))}
              for sid, d in data_tables(report)]
    path.write_text(json.dumps(tables, indent=1, ensure_ascii=False), encoding="utf-8")
    return path
