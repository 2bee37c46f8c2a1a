from pathlib import Path

import pytest

from policies import load_policy

SUPPORT = Path(__file__).parent / "support"


@pytest.fixture(scope="session")
def scripted():
    return load_policy(str(SUPPORT / "scripted.py"))


@pytest.fixture(scope="session")
def invariant_random():
    return load_policy(str(SUPPORT / "invariant_random.py"))
