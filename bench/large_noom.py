#!/usr/bin/env python3
"""Writes a Noom stock export of at least the given size (MB) for the memory
check of issue 3: `make noom-memory`. Deterministic; never committed output."""
import sys

def check_digit(digits):
    total, weight = 0, 3
    for d in reversed(digits):
        total += int(d) * weight
        weight = 4 - weight
    return str((10 - total % 10) % 10)

def main(path, megabytes):
    target = megabytes * 1024 * 1024
    with open(path, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write('<stockExport xmlns="urn:noom:stock:2" version="2.1" generated="2024-05-19T23:05:00+03:00">\n')
        out.write('  <pharmacy id="9999" chain="20">SUUR APTEEK</pharmacy>\n  <items currency="EUR">\n')
        count = 0
        while out.tell() < target:
            base = "474%09d" % count
            gtin = base + check_digit(base)
            out.write(f'    <item aptcode="MM{count:08d}">\n      <gtin>{gtin}</gtin>\n'
                      f'      <name>TOODE {count} ÕLI TBL N{count % 100}</name>\n      <producer>TOOTJA {count % 50}</producer>\n'
                      f'      <atc>M01AE01</atc>\n      <price net="{count % 97}.{count % 100:02d}" vatRate="9"/>\n'
                      f'      <stock>{count % 13}</stock>\n    </item>\n')
            count += 1
        out.write(f'  </items>\n  <summary itemCount="{count}"/>\n</stockExport>\n')
    print(f"{path}: {count} items")

if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
