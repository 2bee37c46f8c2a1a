"""Rule ids: docs/rules.md defines every `R-…` id the project cites, and every id it defines is
tagged where the engine plays it and checked by a rule test, so a reader can go from any of the
three to the others.

An id is defined by a bold label opening a line of docs/rules.md (`**R-HAND.**`). Anywhere else an
`R-…` word cites it; a prefix (`R-SETUP`, `R-ACT-*`) cites the family of ids that start with it.
The engine's tag must be the id written out in full, so that searching for it finds the code.
"""
import ast
import re
from pathlib import Path

from fisim.rules.config import SWITCHES

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"
ENGINE = ROOT / "fisim" / "rules"
CITING = [ROOT / "fisim", ROOT / "policies", ROOT / "tests", ROOT / "docs", ROOT / "README.md"]
RULE_TESTS = sorted((ROOT / "tests").glob("test_rules*.py"))

RULE_ID = r"R-[A-Z0-9]+(?:-[A-Z0-9]+)*"
CITATION = re.compile(rf"(?<![\w-])({RULE_ID})")
DEFINITION = re.compile(rf"^\*\*({RULE_ID})\.\*\*", re.MULTILINE)

# Ids the engine plays but does not tag yet; tagging them is part of the fisim/rules refactor of
# issue 12. Until then the tagging test is an expected failure naming them; delete this tuple once
# they are tagged.
def defined_ids():
    """The ids of docs/rules.md, in their order there."""
    return DEFINITION.findall(RULES_DOC.read_text())


def text_files(paths):
    """(path, text) of every UTF-8 text file under `paths`, compiled caches skipped."""
    for root in paths:
        for path in sorted([root] if root.is_file() else root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                try:
                    yield path, path.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    continue


def cited_ids(paths):
    """{id: first file citing it} over the text files under `paths`."""
    found = {}
    for path, text in text_files(paths):
        for rule in CITATION.findall(text):
            found.setdefault(rule, path.relative_to(ROOT).as_posix())
    return found


def rule_test_docstrings():
    """The docstring of every test function in tests/test_rules*.py."""
    for path in RULE_TESTS:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                yield ast.get_docstring(node) or ""


def untagged_in_engine():
    """The ids of docs/rules.md, in their order there, that fisim/rules/ does not write out."""
    tagged = set(cited_ids([ENGINE]))
    return [rule for rule in defined_ids() if rule not in tagged]


def test_rules_doc_defines_each_id_once():
    """An id labels one rule only, so a search for it lands on one place."""
    ids = defined_ids()
    assert sorted(r for r in set(ids) if ids.count(r) > 1) == []


def test_every_cited_id_is_defined_in_the_rules_doc():
    """An id cited in fisim/, policies/, tests/, docs/ or README.md that docs/rules.md does not
    define (a prefix must start at least one defined id) is named with the file that cites it."""
    ids = set(defined_ids())
    undefined = {rule: where for rule, where in cited_ids(CITING).items()
                 if rule not in ids and not any(d.startswith(rule + "-") for d in ids)}
    assert undefined == {}


def test_every_rule_id_is_tagged_in_the_engine():
    """Every id of docs/rules.md is written out somewhere in fisim/rules/ (the engine)."""
    assert untagged_in_engine() == [], "no tag in fisim/rules/"


def test_every_rule_id_and_switch_is_cited_by_a_rule_test():
    """Every id of docs/rules.md and every rule switch is cited in the docstring of some test in
    tests/test_rules*.py (the rule tests, on hand-built positions)."""
    docs = list(rule_test_docstrings())
    assert [r for r in defined_ids() if not any(r in CITATION.findall(d) for d in docs)] == []
    assert [s for s in SWITCHES if not any(s in d for d in docs)] == []


def test_rules_doc_lists_the_switches_fisim_accepts():
    """The sentence naming the switches fisim accepts today matches fisim.rules.config.SWITCHES."""
    text = RULES_DOC.read_text()
    sentence = re.search(r"Switches fisim accepts today:(.*?)\.\s", text, re.DOTALL)
    assert sentence, "docs/rules.md has no 'Switches fisim accepts today:' sentence"
    assert set(re.findall(r"`([a-z0-9-]+)`", sentence.group(1))) == set(SWITCHES)
