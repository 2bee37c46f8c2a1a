"""What a report is: a Report of Sections, each a text, a figure and Tables. A table is declared
once, as numbers (a DataFrame with the columns docs/report-tables.md lists, written as data), with
the formats that turn those numbers into the text people read (its Columns); every writer (HTML,
Markdown, the terminal) renders the same rows from them, so every output shows the same numbers."""
import re
from collections import namedtuple
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from fisim.formatting import NONE


def slug(name):
    """A name as part of a file name or an id: lower case, each run of other characters than
    letters and digits a '-' ('skull-island', 'search-8')."""
    return re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-")


@dataclass
class Column:
    """A column as people read it: its heading and the text of a row of the table's numbers;
    `words` for a column of names (left-aligned), not of numbers."""
    heading: str
    text: Callable
    words: bool = False


@dataclass
class Spread:
    """Columns across the values of `key`, one per value of `values`, headed `heading(value)`: each
    cell is `text` of the row of `frame` (default: the table's) whose `key` is that value and whose
    settings `on` are those of the row people read ('–' when there is none)."""
    key: str
    values: list
    text: Callable
    on: tuple = ()
    frame: object = None
    heading: Callable = str


People = namedtuple("People", "headings words rows marks")


@dataclass
class Table:
    """One table of a report, declared once as numbers. `frame` is written as data (tables/<name>.csv,
    an entry of tables.json) unless `name` is empty (a view of numbers another table holds).
    People read one row per row of the frame, or per distinct settings `per` (the first row of
    each), ordered by `order(frame)` when given, the first `head` of them; `mark` names a column
    whose value ("strongest", "weakest" or "") marks a row; `markdown` False keeps a detail table
    to the HTML report."""
    name: str
    caption: str
    frame: object
    columns: list
    per: tuple = ()
    order: Callable = None
    head: int = None
    mark: str = None
    markdown: bool = True

    def _read(self):
        """The rows people read, as rows of the frame."""
        frame = self.order(self.frame) if self.order else self.frame
        if self.per:
            frame = frame.drop_duplicates(list(self.per))
        return frame if self.head is None else frame.head(self.head)

    @cached_property
    def people(self):
        """The table as people read it (People): every column's heading (a Spread's one per
        value) and whether it holds names (left-aligned) rather than numbers, the rows as texts (a
        setting read as it is, a player count too),
        and their marks."""
        columns = []
        for column in self.columns:
            if isinstance(column, Column):
                columns.append((column.heading, column.words, column.text))
                continue
            found = {}
            for _, row in (self.frame if column.frame is None else column.frame).iterrows():
                found.setdefault((*(row[k] for k in column.on), row[column.key]), row)
            for value in column.values:
                def cell(row, value=value, column=column, found=found):
                    hit = found.get((*(row[k] for k in column.on), value))
                    return NONE if hit is None else column.text(hit)
                columns.append((column.heading(value), False, cell))
        read = self._read()
        return People([c[0] for c in columns], [c[1] for c in columns],
                      [[str(text(row)) for _, _, text in columns] for _, row in read.iterrows()],
                      list(read[self.mark]) if self.mark else [])


@dataclass
class Section:
    id: str
    title: str
    text: str
    caption: str                    # who played, the setting held fixed, how many games
    figure: object = None           # a matplotlib Figure
    tables: list = field(default_factory=list)
    note: str = ""
    glance: list = field(default_factory=list)      # the section's answer, lines for "At a glance"

    @property
    def data(self):
        """The section's tables written as data."""
        return [t for t in self.tables if t.name]


@dataclass
class Report:
    title: str
    subtitle: str
    overview: list                  # (label, value) pairs
    highlights: list
    warnings: list
    sections: list
    sources: list                   # the names of the stores it was made from
    overview_title: str = "The sweep"               # the heading of `overview`
    notes: list = field(default_factory=list)       # paragraphs under the title (who made it, how long it took)
