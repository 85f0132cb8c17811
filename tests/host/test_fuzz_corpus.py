"""The libFuzzer harnesses of tests/fuzz over their whole corpus, once.

No fuzzing here (`make fuzz` does that): each harness runs every input of
tests/fuzz/corpus/<harness>/ once, the seed inputs and every input that
ever crashed it (crash-<what>), under ASan and UBSan (clang). A crash, a
sanitizer report or a broken contract (the harness aborts, "==== fuzz:
contract broken: ...") fails the test with the input that did it. The
harnesses are built with clang into build/fuzz (tests/fuzz/Makefile);
without clang (make setup installs it) the tests are skipped, saying so.
"""
import os
import re
import shutil
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZ = os.path.join(TOP, "tests", "fuzz")
OUT = os.path.join(TOP, "build", "fuzz")
HARNESSES = ["fuzz_tc_redopt", "fuzz_specctl_parse", "fuzz_specd_config", "fuzz_specd_state"]
MAX_INPUT = 16 * 1024     # bytes: a corpus of small files

pytestmark = pytest.mark.skipif(shutil.which("clang") is None,
                                reason="clang not installed (make setup installs it)")


@pytest.fixture(scope="module")
def harnesses():
    p = subprocess.run(["make", "--no-print-directory", "-j2", "-C", FUZZ, f"O={OUT}"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return OUT


def corpus(h):
    d = os.path.join(FUZZ, "corpus", h)
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def test_harness_list_is_the_makefiles():
    mk = open(os.path.join(FUZZ, "Makefile")).read()
    listed = re.search(r"^HARNESSES := (.*)$", mk, re.M).group(1).split()
    assert listed == HARNESSES
    assert sorted(os.listdir(os.path.join(FUZZ, "corpus"))) == sorted(HARNESSES)


@pytest.mark.parametrize("h", HARNESSES)
def test_corpus_is_small(h):
    files = corpus(h)
    assert len(files) >= 10, f"{h}: {len(files)} inputs"
    big = [f for f in files if os.path.getsize(f) > MAX_INPUT]
    assert not big, f"inputs over {MAX_INPUT} bytes: {big}"


@pytest.mark.parametrize("h", HARNESSES)
def test_harness_passes_its_corpus(harnesses, h):
    files = corpus(h)
    p = subprocess.run([os.path.join(harnesses, h), *files], capture_output=True, text=True,
                       errors="replace", timeout=300)
    if p.returncode != 0:
        ran = re.findall(r"^Running: (.*)$", p.stderr, re.M)
        why = [ln for ln in p.stderr.splitlines()
               if re.search(r"SUMMARY:|contract broken|ERROR: libFuzzer", ln)]
        report = p.stderr[p.stderr.find("==ERROR:"):][:4000] if "==ERROR:" in p.stderr else ""
        pytest.fail(f"{h} failed (exit {p.returncode}) on {ran[-1] if ran else '?'}: "
                    f"{why[0] if why else p.stderr[-2000:]}\n{report}")
    assert f"Running {len(files)} inputs 1 time(s) each" in p.stderr
    assert len(re.findall(r"^Executed ", p.stderr, re.M)) == len(files)
