#!/usr/bin/env python3
"""Complete the man pages swift-argument-parser generates (mdoc, one per command).

The plugin knows only what the command definitions say: it writes
`.Ex -std` ("exits 0 on success, >0 on error") under EXIT STATUS, has no
FILES or ENVIRONMENT section, and shows no default for an import option
whose default is applied after the settings layers (the options are
optional so that a file or a variable can fill them). An operator reading
`man ingest-import` needs all four, so this fills them in from the same
sources the programs use:

- EXIT STATUS: the page's own "Exit codes:" list (each command prints it in
  --help), moved out of DESCRIPTION; a page without one takes the list of
  the command above it.
- defaults: `ingest config show` run with no settings file and no variable
  (its output is given as --import-defaults), appended to each import
  option as "(default: …)".
- ENVIRONMENT and FILES: the settings layers and the installed paths, as
  docs/OPERATIONS.md describes them.
- Names: pages are installed as ingest-import.1, so titles and
  cross-references use the dash too (`man ingest-import`).

Usage: complete-man-pages.py --import-defaults FILE PAGE.1 ...  (edits in place)
"""
import argparse
import pathlib
import re
import sys

EXIT_HEADER = "Exit codes:"

INGEST_FILES = [
    ("/etc/ingest/ingest.toml", "Settings: the long option names as keys (INGEST_CONFIG or --config names another file)."),
    ("/etc/ingest/mappings/", "Mapping files (*.mapping.toml) for real exports, and patient_price_rules.toml."),
    ("/etc/default/ingest", "INGEST_FLAGS: one-off flags the systemd unit adds to the next nights."),
    ("/var/lib/ingest/feeds/", "The feeds folder: tonight's stock exports and reference files."),
    ("/var/lib/ingest/snapshots/", "Published versions (<version>.sqlite, .manifest.json, .changeset, .report.html) and the current link."),
    ("/var/lib/ingest/snapshots/.lock", "Held by a run; a second run exits 75."),
    ("/var/lib/ingest/snapshots/quarantine.json", "Feeds kept out of the night by `ingest quarantine add`."),
    ("/var/lib/ingest/snapshots/feeds.ledger.json", "Files already rejected for their own content: not read again (`ingest feeds prune` removes them)."),
    ("/var/lib/ingest/metrics/ingest.prom", "The Prometheus textfile the unit writes (--metrics-file), every night whatever the exit."),
    ("/var/log/ingest/ingest.log", "The unit's JSON log lines, one run_finished line a night."),
    ("/usr/share/doc/ingest/OPERATIONS.md", "The runbook: what each exit status and warning asks of the operator."),
]

SERVE_FILES = [
    ("/etc/ingest/ingest-serve.toml", "Settings: the long option names as keys (INGEST_SERVE_CONFIG or --config names another file)."),
    ("/var/lib/ingest/snapshots/current", "The snapshot answered from; a newly published one is picked up without a restart."),
    ("/var/log/ingest/access.log", "One JSON line per request (--access-log); reopened on SIGHUP for logrotate."),
    ("/usr/share/doc/ingest/SERVING.md", "The queries, their answers and the server's figures."),
]

SERVE_EXIT = [
    ("0", "stopped by SIGTERM or SIGINT after the requests in flight were answered"),
    ("1", "the server could not run (the port is taken, the address is not this machine's)"),
    ("64", "the command line is wrong, or the access log cannot be opened"),
    ("78", "a setting from the file or an INGEST_SERVE_ variable is invalid: the message names where it came from"),
]


def escape(text):
    """mdoc text: a leading dot or quote would be read as a request."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text[:1] in (".", "'") else text


def parse_defaults(path):
    """`ingest config show` lines: `key = value   # default`."""
    defaults = {}
    for line in pathlib.Path(path).read_text().splitlines():
        match = re.match(r"^([a-z0-9-]+) = (.*?)\s+# default$", line)
        if match:
            defaults[match.group(1)] = match.group(2)
    return defaults


def exit_codes(lines):
    """Take the "Exit codes:" block out of DESCRIPTION: [(code, meaning)] and the remaining lines."""
    codes, kept, inside = [], [], False
    for line in lines:
        if line.strip() == EXIT_HEADER:
            inside = True
            continue
        if inside:
            match = re.match(r"^\s+(\d+)\s+(.*)$", line)
            if match:
                codes.append([match.group(1), match.group(2)])
                continue
            if codes and line.startswith("  ") and not line.startswith("."):
                codes[-1][1] += " " + line.strip()  # a meaning continued on the next line
                continue
            inside = False
        kept.append(line)
    return codes, kept


def exit_section(codes):
    out = [".Sh \"EXIT STATUS\"", ".Bl -tag -width 4n"]
    for code, meaning in codes:
        out += [f".It {code}", escape(meaning)]
    return out + [".El"]


def list_section(title, entries, tag="Pa", intro=None):
    out = [f".Sh {title}"] + ([escape(intro)] if intro else []) + [".Bl -tag -width Ds"]
    for name, meaning in entries:
        out += [f".It {tag} {name}", escape(meaning)]
    return out + [".El"]


def environment(command, options):
    """[(variable, meaning)] and the paragraph that says how every option variable is read."""
    serve = command.startswith("ingest-serve")
    prefix = "INGEST_SERVE_" if serve else "INGEST_"
    intro = (f"Every option can also be set by a variable {prefix}<NAME> (the long option's name in capitals, "
             "dashes as underscores): under the command line, over the settings file. A switch takes 1, true or yes, "
             "or 0, false or no. A value the option refuses exits 78, naming the variable.")
    entries = [(f"{prefix}CONFIG", "The settings file instead of " + ("/etc/ingest/ingest-serve.toml." if serve else "/etc/ingest/ingest.toml."))]
    entries += [(f"{prefix}{o.upper().replace('-', '_')}", f"--{o}") for o in options if o not in ("version", "help", "config")]
    if command in ("ingest", "ingest import"):
        entries.append(("INGEST_FLAGS", "Read by the systemd unit from /etc/default/ingest and added to its command line."))
    return intro, entries


def closing_sections(command, options):
    intro, variables = environment(command, options)
    return (list_section("ENVIRONMENT", variables, tag="Ev", intro=intro)
            + list_section("FILES", SERVE_FILES if command.startswith("ingest-serve") else INGEST_FILES))


def complete(page, defaults, parent_codes):
    lines = page.read_text().splitlines()
    command = next((l.split(" ", 1)[1].strip('"') for l in lines if l.startswith(".Nm ")), page.stem)
    codes, lines = exit_codes(lines)
    if not codes:
        codes = SERVE_EXIT if command.startswith("ingest-serve") else parent_codes.get(command.rsplit(" ", 1)[0], [])
    out, options, current_option = [], [], None
    for line in lines:
        if line.startswith(".Dt "):
            line = line.replace(".", "-").replace("-Dt ", ".Dt ", 1)
        line = re.sub(r"^\.Xr ([a-z]+)\.([a-z.-]+)", lambda m: f".Xr {m.group(1)}-{m.group(2).replace('.', '-')}", line)
        option = re.match(r"^\.It Fl (?:h , )?-([a-z0-9-]+)", line)
        if option:
            current_option = option.group(1)
            options.append(current_option)
            out.append(line)
            continue
        if current_option and command in ("ingest", "ingest import") and not line.startswith("."):
            value = defaults.get(current_option)
            if value not in (None, "(none)", "false") and "(default" not in line:
                line = f"{line} (default: {escape(value)})"
            current_option = None
        if line.startswith(".Sh \"EXIT STATUS\""):
            out += exit_section(codes)
            continue
        if line == ".Ex -std":
            continue
        if line.startswith(".Sh \"SEE ALSO\"") or line.startswith(".Sh AUTHORS"):
            out += closing_sections(command, options)
        out.append(line)
    if not any(l.startswith(".Sh ENVIRONMENT") for l in out):
        out += closing_sections(command, options)
    page.write_text("\n".join(out) + "\n")
    return command, codes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--import-defaults", required=True)
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    defaults = parse_defaults(args.import_defaults)
    if not defaults:
        sys.exit(f"complete-man-pages: no defaults read from {args.import_defaults}")
    # Parents first, so that a page without its own list takes its parent's.
    pages = sorted((pathlib.Path(p) for p in args.pages), key=lambda p: p.stem.count("."))
    parent_codes = {}
    for page in pages:
        command, codes = complete(page, defaults, parent_codes)
        parent_codes[command] = codes


if __name__ == "__main__":
    main()
