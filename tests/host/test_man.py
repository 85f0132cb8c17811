"""The man pages in man/: each renders without a warning, and each stays
honest against the code it documents.

* Rendering: `groff -man -ww -z` (every groff warning, with file and line)
  and `man --warnings=all -l` (man-db's own pipeline, as a reader gets
  it), both silent on stderr; the rendered page is not empty and has its
  title, NAME, SYNOPSIS, DESCRIPTION and SEE ALSO.
* specctl.8, specd.8: the options of each command, as the OPTIONS section
  lists them (the tags of its .TP paragraphs, one .SS per command), against
  the options the binary's --help prints. An option in --help but not in
  the page fails; so does one in the page but not in --help, unless the
  binary takes it and prints its usage (-h, --help are not in the help
  text). The commands are those `specctl --help` lists. Every long option
  the rendered specctl.8 mentions anywhere exists in some command.
* specd.conf.5: every key the sample userspace/specd/specd.conf mentions,
  and every key config.c parses, has its entry in KEYS; and specd -n
  knows every key KEYS documents.
* tc-redopt.8: the keywords of PARAMETERS are those q_redopt.c parses; the
  counters it prints for `tc -s` are in STATISTICS, the keys of its dump in
  OUTPUT.
* A reference to one of these pages, e.g. specd.conf(5), names a page that
  exists.

The binaries come from conftest.py's fixtures (built once per pytest session).
Needs groff (Debian: groff-base) and man (Debian: man-db).
"""
import os
import re
import shutil
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAN = os.path.join(TOP, "man")
PAGES = ["specctl.8", "specd.8", "specd.conf.5", "tc-redopt.8"]
SAMPLE = os.path.join(TOP, "userspace", "specd", "specd.conf")
CONFIG_C = os.path.join(TOP, "userspace", "specd", "config.c")
Q_REDOPT = os.path.join(TOP, "userspace", "tc", "q_redopt.c")

# an option word: -c, --tc-red; not 2^-Wlog, not "--" alone
OPT = re.compile(r"(?<![\w^-])(--?[A-Za-z][\w-]*)")


def tool(name, package):
    exe = shutil.which(name)
    assert exe, f"{name} not found: install {package} (apt-get install {package})"
    return exe


def page_path(page):
    return os.path.join(MAN, page)


def render(page, width=80, hyphenate=True):
    """`man -l` of the page as plain text: (stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MANOPT", "MANROFFOPT")}
    env.update(MANWIDTH=str(width), LC_ALL="C.UTF-8")
    if not hyphenate:
        env["MANROFFOPT"] = "-rHY=0"
    p = subprocess.run([tool("man", "man-db"), "--warnings=all", "-l", page_path(page)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    # U+2010 (hyphen), U+2212 (minus): plain '-' for the checks
    return p.stdout.replace("\u2010", "-").replace("\u2212", "-"), p.stderr


# ---- the page source: sections and the tags of .TP paragraphs -------------

def macro_args(line):
    """Arguments of a macro line, as groff splits them: spaces separate,
    double quotes group ("" is a quote inside them), escapes stay whole."""
    args, cur, quoted, i, have = [], "", False, 0, False
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur += line[i:i + 2]
            have = True
            i += 2
            continue
        if quoted:
            if c == '"' and line[i + 1:i + 2] == '"':
                cur += '"'
                i += 2
                continue
            if c == '"':
                quoted = False
            else:
                cur += c
        elif c == '"' and not cur:
            quoted = have = True
        elif c in " \t":
            if have:
                args.append(cur)
            cur, have = "", False
        else:
            cur += c
            have = True
        i += 1
    if have:
        args.append(cur)
    return args


ESCAPES = [(r"\-", "-"), (r"\e", "\\"), (r"\ ", " "), (r"\~", " "), (r"\&", ""),
           (r"\(dq", '"'), (r"\(aq", "'"), (r"\(lq", '"'), (r"\(rq", '"'), (r"\(bu", "*")]
FONT_MACROS = {"B": "B", "I": "I", "R": "R", "BI": "BI", "BR": "BR", "IB": "IB",
               "IR": "IR", "RB": "RB", "RI": "RI", "SM": "R", "SB": "B"}


def runs(line):
    """A text or macro line of the source as (font, text) runs: font B, I or
    R, from the macro (.B, .BR, ...) and the \\f escapes inside."""
    if line.startswith("."):
        name, _, rest = line[1:].partition(" ")
        fonts = FONT_MACROS.get(name)
        if fonts is None:
            return []
        args = macro_args(rest)
        parts = [(fonts[i % len(fonts)], a) for i, a in enumerate(args)]
    else:
        parts = [("R", line)]
    out = []
    for base, text in parts:
        font, prev = base, base
        for piece in re.split(r"(\\f[BIRP]|\\f\[\w*\])", text):
            m = re.fullmatch(r"\\f([BIRP])|\\f\[(\w*)\]", piece or "")
            if m:
                new = m.group(1) or m.group(2) or "P"
                font, prev = (prev, font) if new == "P" else (new, font)
                continue
            for a, b in ESCAPES:
                piece = piece.replace(a, b)
            if piece:
                out.append((font, piece))
    return out


def plain(line):
    return "".join(t for _, t in runs(line))


def heading(line):
    return " ".join(plain(a) for a in macro_args(line[3:]))


def sections(page):
    """{section: {subsection or "": [source lines]}} of the page."""
    out, sh, ss = {}, None, ""
    with open(page_path(page)) as f:
        for line in f.read().splitlines():
            if line.startswith(".SH"):
                sh, ss = heading(line), ""
                out[sh] = {"": []}
            elif line.startswith(".SS") and sh:
                ss = heading(line)
                out[sh][ss] = []
            elif sh:
                out[sh][ss].append(line)
    return out


def tags(lines):
    """The tag line of each .TP paragraph."""
    return [lines[i + 1] for i, line in enumerate(lines[:-1])
            if line.split(" ")[0] == ".TP"]


def tag_options(lines):
    return {o for t in tags(lines) for o in OPT.findall(plain(t))}


# ---- the binaries' help ----------------------------------------------------

def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=10)


def help_options(text):
    """The options a --help text names: in its usage line and its option
    list (an option starts a word after a space, '[', '|' or '(')."""
    return set(re.findall(r"(?:^|[\s\[|(])(--?[A-Za-z][\w-]*)", text, re.M))


def specctl_commands(specctl):
    p = run(specctl, "--help")
    assert p.returncode == 0, p.stderr
    body = p.stdout.split("commands:", 1)[1]
    cmds = re.findall(r"^  ([a-z]+(?: [a-z]+)?)\s{2,}\S", body, re.M)
    assert cmds, p.stdout
    return p.stdout, cmds


def prints_usage(argv, usage):
    """The binary takes this option: it prints its usage and exits 0."""
    p = run(*argv)
    return p.returncode == 0 and p.stdout.startswith(usage)


def compare(what, page_opts, help_opts, argv, usage, after=()):
    """@after follows the option when it is tried: for specd, a config that
    does not exist, so that no option can start the daemon for real."""
    missing = help_opts - page_opts
    assert not missing, f"{what}: in --help, not in the man page: {sorted(missing)}"
    extra = {o for o in page_opts - help_opts
             if not prints_usage(argv + [o, *after], usage)}
    assert not extra, f"{what}: in the man page, not an option of the binary: {sorted(extra)}"


# ---- rendering -------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_warnings(page):
    p = subprocess.run([tool("groff", "groff-base"), "-man", "-Tutf8", "-ww", "-z",
                        page_path(page)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    out, err = render(page)
    assert err == "", err
    assert out.strip(), "empty output"
    name, section = page.rsplit(".", 1)
    title = "REDOPT" if name == "tc-redopt" else name.upper()
    assert out.lstrip().startswith(f"{title}({section})"), out[:200]
    for sh in ("NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"):
        assert re.search(rf"^{sh}$", out, re.M), f"no {sh} section"


def test_references_to_our_pages_exist():
    ours = {p.rsplit(".", 1)[0] for p in PAGES}
    for page in PAGES:
        with open(page_path(page)) as f:
            text = f.read()
        for name, sec in re.findall(r"^\.BR (\S+) \((\d)\)", text, re.M):
            name = name.replace("\\-", "-")
            if name in ours:
                assert os.path.exists(page_path(f"{name}.{sec}")), f"{page}: {name}({sec})"


# ---- specctl.8 ---------------------------------------------------------------

def test_specctl_options_match_help(specctl):
    top_help, cmds = specctl_commands(specctl)
    opts = sections("specctl.8")["OPTIONS"]
    assert set(opts) - {""} == set(cmds) | {"Without a command"}, sorted(opts)
    compare("specctl", tag_options(opts["Without a command"]), help_options(top_help),
            [specctl], "usage: specctl <command>")
    for cmd in cmds:
        p = run(specctl, *cmd.split(), "--help")
        assert p.returncode == 0, p.stderr
        assert help_options(p.stdout), p.stdout
        compare(f"specctl {cmd}", tag_options(opts[cmd]), help_options(p.stdout),
                [specctl, *cmd.split()], f"usage: specctl {cmd}")


def test_specctl_page_mentions_only_real_long_options(specctl):
    top_help, cmds = specctl_commands(specctl)
    real = help_options(top_help)
    for cmd in cmds:
        real |= help_options(run(specctl, *cmd.split(), "--help").stdout)
    text, _ = render("specctl.8", width=200, hyphenate=False)
    mentioned = {o for o in OPT.findall(text) if o.startswith("--")}
    assert mentioned - real == set(), sorted(mentioned - real)


# ---- specd.8 -----------------------------------------------------------------

def test_specd_options_match_help(specd):
    p = run(specd, "-h")
    assert p.returncode == 0, p.stderr
    help_opts = help_options(p.stdout)
    assert {"-c", "-n"} <= help_opts, p.stdout
    opts = sections("specd.8")["OPTIONS"][""]
    compare("specd", tag_options(opts), help_opts, [specd], "usage: specd",
            after=["-c", os.path.join(MAN, "no-such.conf")])


# ---- specd.conf.5 --------------------------------------------------------------

def documented_keys():
    keys = set()
    for t in tags(sections("specd.conf.5")["KEYS"][""]):
        m = re.match(r"([a-z_]+) = ", plain(t))
        assert m, f"KEYS tag not 'key = value': {t}"
        keys.add(m.group(1))
    return keys


def test_sample_config_keys_are_documented():
    with open(SAMPLE) as f:
        sample = set(re.findall(r"^\s*#?\s*([a-z][a-z_]*)\s*=", f.read(), re.M))
    assert len(sample) >= 10, sample
    assert sample - documented_keys() == set(), sorted(sample - documented_keys())


def test_parser_keys_are_documented():
    with open(CONFIG_C) as f:
        parsed = set(re.findall(r'strcmp\(key, "([a-z_]+)"\)', f.read()))
    assert len(parsed) >= 10, parsed
    assert parsed - documented_keys() == set(), sorted(parsed - documented_keys())


def test_documented_keys_are_known_to_specd(specd, tmp_path):
    for key in sorted(documented_keys()):
        conf = tmp_path / f"{key}.conf"
        conf.write_text(f"manage = 192.0.2.1\n{key} = @\n")
        p = run(specd, "-n", "-c", str(conf))
        assert "unknown key" not in p.stderr, (key, p.stderr)


# ---- tc-redopt.8 ----------------------------------------------------------------

def q_redopt_function(name):
    with open(Q_REDOPT) as f:
        src = f.read()
    start = src.index(f"static int {name}(")
    return src[start:src.index("\n}\n", start)]


def test_tc_parameters_match_the_plugin():
    parse = q_redopt_function("redopt_parse_opt")
    parsed = set(re.findall(r'strcmp\((?:key|\*argv), "([a-z-]+)"\)', parse))
    assert {"bandwidth", "loss-rate", "noadaptive", "auto", "help"} <= parsed, parsed
    documented = set()
    for t in tags(sections("tc-redopt.8")["PARAMETERS"][""]):
        documented |= {w for font, text in runs(t) if font == "B"
                       for w in re.findall(r"[a-z][a-z-]*", text)}
    assert documented == parsed, (sorted(documented - parsed), sorted(parsed - documented))


def section_text(page, name):
    return "\n".join(plain(line) for lines in sections(page)[name].values()
                     for line in lines)


def test_tc_statistics_are_documented():
    """Each counter of `tc -s` has its entry in STATISTICS; those only -d
    adds are named there."""
    always, _, details = q_redopt_function("redopt_print_xstats").partition("if (show_details)")
    counters = set(re.findall(r'PRINT_ANY, "(\w+)"', always))
    extra = set(re.findall(r'PRINT_ANY, "(\w+)"', details))
    assert {"marked", "overflow", "recomputes"} <= counters and "qth_max" in extra
    entries = {plain(t).split()[0] for t in tags(sections("tc-redopt.8")["STATISTICS"][""])}
    assert counters - entries == set(), sorted(counters - entries)
    text = section_text("tc-redopt.8", "STATISTICS")
    missing = {k for k in extra if not re.search(rf"(?<![\w-]){k}(?![\w-])", text)}
    assert not missing, sorted(missing)


def test_tc_dump_keys_are_documented():
    dump = q_redopt_function("redopt_print_opt")
    printed = set(re.findall(r'"\(?([A-Za-z_][\w-]*) %', dump))
    assert {"bandwidth", "qavg_max", "m_bound", "Wlog", "est"} <= printed, printed
    text = section_text("tc-redopt.8", "OUTPUT")
    missing = {k for k in printed if not re.search(rf"(?<![\w-]){k}(?![\w-])", text)}
    assert not missing, sorted(missing)
