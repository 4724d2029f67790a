#!/usr/bin/env python3
"""Reference lists of real size for `make bench`: an ATC classification of
about 7,000 groups (WHO's index has 6,996) and an ICD-10 list of about 12,000
codes (WHO's four-character version has 12,130), in FEEDS.md's `code;name`
form, deterministic. Usage: reference_lists.py OUT_DIR"""
import sys

out = sys.argv[1]
letters = "ABCDGHJLMNPRSV"
with open(f"{out}/atc.csv", "w", encoding="utf-8") as f:
    f.write("code;name\n")
    count = 0
    for a in letters:                       # 14 anatomical groups
        f.write(f"{a};GROUP {a}\n"); count += 1
        for b in range(1, 8):               # 98 therapeutic groups
            l2 = f"{a}{b:02d}"
            f.write(f"{l2};THERAPEUTIC {l2}\n"); count += 1
            for c in "ABCD":                # 392
                l3 = f"{l2}{c}"
                f.write(f"{l3};PHARMACOLOGICAL {l3}\n"); count += 1
                for d in "ABC":             # 1,176
                    l4 = f"{l3}{d}"
                    f.write(f"{l4};CHEMICAL {l4}\n"); count += 1
                    for e in range(1, 6):   # 5,880
                        l5 = f"{l4}{e:02d}"
                        f.write(f"{l5};Substance {l5} õäöü\n"); count += 1
print(f"atc.csv: {count} groups", file=sys.stderr)
with open(f"{out}/icd10.csv", "w", encoding="utf-8") as f:
    f.write("code;name\n")
    count = 0
    for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        for n in range(0, 80):              # 2,080 three-character codes
            code = f"{a}{n:02d}"
            f.write(f"{code};Disease {code}\n"); count += 1
            for d in range(0, 5 if n % 2 else 4):  # 9,360 four-character ones
                f.write(f"{code}.{d};Disease {code}.{d} (Sjögren)\n"); count += 1
print(f"icd10.csv: {count} codes", file=sys.stderr)
