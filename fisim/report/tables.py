"""The report's tables as data: one CSV file per table (tables/<section>-<n>.csv) or all of them in
one JSON file (tables.json), with the same cells as the HTML and Markdown report."""
import csv
import json


def write_csv(report, out):
    """One CSV file per table, header first; returns the paths written."""
    written = []
    for s in report.sections:
        for k, t in enumerate(s.tables, start=1):
            path = out / "tables" / f"{s.id}-{k}.csv"
            path.parent.mkdir(exist_ok=True)
            with open(path, "w", newline="", encoding="utf-8") as f:
                writer = csv.writer(f)
                writer.writerow(t.columns)
                writer.writerows(t.rows)
            written.append(path)
    return written


def write_json(report, out):
    """Every table as {section, caption, columns, rows} in one JSON list; returns the path."""
    path = out / "tables.json"
    tables = [{"section": s.id, "caption": t.caption, "columns": t.columns, "rows": t.rows}
              for s in report.sections for t in s.tables]
    path.write_text(json.dumps(tables, indent=1, ensure_ascii=False), encoding="utf-8")
    return path
