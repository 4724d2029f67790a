#!/usr/bin/env python3
"""Reference data of real size for `make bench`, written into a generated
feeds folder (a hard-linked copy of one: the four files are unlinked first,
never written through): an ATC classification of about 7,000 groups (WHO's
index has 6,996), an ICD-10 list of about 12,000 codes (WHO's four-character
version has 12,130), a medicine register (FEEDS.md §11) of 20,000 packages
and a reimbursement list of 20,000 packages. The generated rows stay, so
every item keeps its ATC group, package and tiers; synthetic rows that do
not collide with them fill each list to size. Deterministic.
Usage: reference_lists.py FEEDS_DIR"""
import os
import re
import sys

feeds = sys.argv[1]
PACKAGES = 20_000


def replace(name):
    """The generated file's text, and a fresh file of the same name to write (a hard link is not written through)."""
    path = os.path.join(feeds, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    os.unlink(path)
    return text, open(path, "w", encoding="utf-8")


def package_code(six):
    return f"{six}{sum(int(d) for d in str(six)) % 10}"


# ATC: the generated groups, then a synthetic tree of groups it does not have.
text, f = replace("atc.csv")
lines = text.splitlines()
f.write("\n".join(lines) + "\n")
seen = {line.split(";", 1)[0] for line in lines[1:]}
atc = len(lines) - 1
for a in "ABCDGHJLMNPRSV":                                     # 14 anatomical groups
    for code, name in [(a, f"GROUP {a}")]:
        if code not in seen: f.write(f"{code};{name}\n"); atc += 1
    for b in range(1, 8):                                      # 98 therapeutic groups
        l2 = f"{a}{b:02d}"
        if l2 not in seen: f.write(f"{l2};THERAPEUTIC {l2}\n"); atc += 1
        for c in "ABCD":                                       # 392
            l3 = f"{l2}{c}"
            if l3 not in seen: f.write(f"{l3};PHARMACOLOGICAL {l3}\n"); atc += 1
            for d in "ABC":                                    # 1,176
                l4 = f"{l3}{d}"
                if l4 not in seen: f.write(f"{l4};CHEMICAL {l4}\n"); atc += 1
                for e in range(1, 5 if d == "C" else 6):       # 5,488
                    l5 = f"{l4}{e:02d}"
                    if l5 not in seen: f.write(f"{l5};Substance {l5} õäöü\n"); atc += 1
f.close()
print(f"atc.csv: {atc} groups", file=sys.stderr)

# ICD-10: the generated codes, then three- and four-character codes it does not have.
text, f = replace("icd10.csv")
lines = text.splitlines()
f.write("\n".join(lines) + "\n")
seen = {line.split(";", 1)[0] for line in lines[1:]}
icd = len(lines) - 1
for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    for n in range(0, 82):                                     # 2,132 three-character codes
        code = f"{a}{n:02d}"
        if code not in seen: f.write(f"{code};Disease {code}\n"); icd += 1
        for d in range(0, 5 if n % 2 else 4):                  # about 9,600 four-character ones
            sub = f"{code}.{d}"
            if sub not in seen: f.write(f"{sub};Disease {sub} (Sjögren)\n"); icd += 1
f.close()
print(f"icd10.csv: {icd} codes", file=sys.stderr)

# Reimbursement list: the generated packages, then synthetic ones to 20,000.
name = next(n for n in sorted(os.listdir(feeds)) if n.startswith("reimbursement_") and n.endswith(".xml"))
text, f = replace(name)
listed = set(re.findall(r'<package code="(\d{7})"', text))
body, end = text.rsplit("</reimbursementList>", 1)
f.write(body)
six = 300000
tiers = [
    '    <tier rate="50"/>\n',
    '    <tier rate="75">\n      <diagnoses>I21*; I22*; I25.2*</diagnoses>\n      <info>*rv eriarstil (e)</info>\n    </tier>\n',
    '    <tier rate="100">\n      <diagnoses>C00-C97, D00-D09**</diagnoses>\n      <info>**rv onkoloogil</info>\n    </tier>\n',
]
count = len(listed)
while count < PACKAGES:
    code = package_code(six)
    six += 1
    if code in listed: continue
    f.write(f'  <package code="{code}">\n    <limitPrice>{(six % 9000) / 100 + 1:.2f}</limitPrice>\n{tiers[six % 3]}  </package>\n')
    count += 1
f.write("</reimbursementList>" + end)
f.close()
print(f"{name}: {count} packages", file=sys.stderr)

# Medicine register: every package the stock feeds name (Noom's packageCode), then synthetic ones to 20,000.
codes = []
for feed in sorted(os.listdir(feeds)):
    if feed.startswith("noom_"):
        with open(os.path.join(feeds, feed), encoding="utf-8") as noom:
            codes = sorted(set(re.findall(r'packageCode="(\d{7})"', noom.read())))
        break
# The generator's own register rows (every medicine of the catalogue, with
# equivalents for ?q=eq) stay; synthetic packages fill it to size.
register = os.path.join(feeds, "medicine_register_2025-01-01.csv")
generated = []
if os.path.exists(register):
    with open(register, encoding="utf-8") as f:
        generated = f.read().splitlines()[1:]
    os.unlink(register)
with open(register, "w", encoding="utf-8") as f:
    f.write("package_code;name;form;strength;pack_size;atc;active_substance;leaflet_url;spc_url;prescription\n")
    six = 500000
    registered = set()
    for row in generated:
        registered.add(row.split(";", 1)[0])
        f.write(row + "\n")
    pending = iter([code for code in codes if code not in registered])
    while len(registered) < PACKAGES:
        code = next(pending, None)
        if code is None:
            code = package_code(six)
            six += 1
            if code in registered: continue
        registered.add(code)
        f.write(f"{code};PREPARAAT {code};tablett;{10 * (len(registered) % 50 + 1)}mg;{len(registered) % 5 * 10 + 10};;;"
                f"https://register.example/leaflet/{code}.pdf;https://register.example/spc/{code}.pdf;"
                f"{'Rx' if len(registered) % 3 else 'OTC'}\n")
print(f"medicine_register_2025-01-01.csv: {len(registered)} packages ({len(codes)} of them in the feeds)", file=sys.stderr)
