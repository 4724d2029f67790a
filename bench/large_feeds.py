#!/usr/bin/env python3
"""Writes one very large stock feed for `make bench-memory` (issue 17):

  large_feeds.py rax PATH MB [--truncated ITEMS] [--pharmacy ID]
                                                   a RAX 3.2 export (Windows-1257)
  large_feeds.py chain PATH MB PHARMACIES          a chain CSV, rows in random pharmacy order, in the
                                                   columns of `ingest generate --formats chain` (its
                                                   mapping reads it: name the file chain_*.csv)
  large_feeds.py json PATH MB                      one pharmacy's JSON document in the layout of
                                                   `ingest generate --formats json` (name it shop_*.json)
  large_feeds.py jsonl PATH MB PHARMACIES          a JSON Lines chain file, lines in random pharmacy
                                                   order (bench/memory.sh writes its mapping; jsonl_*.jsonl)

Deterministic (fixed seed); never committed output. A truncated RAX file has
ITEMS item lines and no trailer: it is rejected whole, every line a reject."""
import argparse
import random

EXPORTED = "20240519T2305"   # RAX; the chain's date is 19.05.2024: run with --as-of 2024-05-20

def rax(path, megabytes, truncated=None, pharmacy="9998"):
    target = megabytes * 1024 * 1024
    with open(path, "w", encoding="cp1257", newline="") as out:
        out.write(f"H;RAX;3.2;{pharmacy};SUUR APTEEK;{EXPORTED};EUR\r\n")
        count = quantity = 0
        while (out.tell() < target) if truncated is None else (count < truncated):
            q = count % 13
            out.write(f"I;MM{count:08d};;;TOODE {count} ÕLI TBL N{count % 100};TOOTJA {count % 50};M01AE01;IBUPROFEEN;"
                      f"{count % 97},{count % 100:02d};{q}\r\n")
            count += 1
            quantity += q
        if truncated is None:
            out.write(f"T;{count};{quantity}\r\n")
    print(f"{path}: {count} items" + (" (no trailer)" if truncated is not None else ""))

def shuffled_rows(out, megabytes, pharmacies, seed):
    """(pharmacy, its row number) in random pharmacy order until `out` holds `megabytes`."""
    target = megabytes * 1024 * 1024
    rng = random.Random(seed)
    counters = [0] * pharmacies
    while out.tell() < target:
        p = rng.randrange(pharmacies)
        counters[p] += 1
        yield p, counters[p] - 1

def chain(path, megabytes, pharmacies):
    with open(path, "w", encoding="utf-8") as out:
        out.write("apteek;apteegi_nimi;kood;pakend;gtin;nimetus;tootja;atc;hind;kogus;kuupaev\n")
        rows = 0
        for p, n in shuffled_rows(out, megabytes, pharmacies, 17):
            out.write(f'{20000 + p};"APTEEK {p}";MM{n:08d};;;"TOODE {n} ÕLI TBL N{n % 100}";"TOOTJA {n % 50}";;'
                      f'{n % 97},{n % 100:02d};{n % 13};19.05.2024\n')
            rows += 1
    print(f"{path}: {rows} rows for {pharmacies} pharmacies")

def json_feed(path, megabytes, pharmacy="9996"):
    target = megabytes * 1024 * 1024
    with open(path, "w", encoding="utf-8") as out:
        out.write(f'{{"pharmacy": "{pharmacy}", "name": "SUUR APTEEK", "exported": "2024-05-19 23:05",\n "items": [\n')
        count = 0
        while out.tell() < target:
            out.write(("" if count == 0 else ",\n") +
                      f'  {{"code": "MM{count:08d}", "name": "TOODE {count} ÕLI TBL N{count % 100}", "maker": {{"name": "TOOTJA {count % 50}"}}, '
                      f'"atc": "M01AE01", "price": {count % 97}.{count % 100:02d}, "stock": {count % 13}}}')
            count += 1
        out.write("\n]}\n")
    print(f"{path}: {count} items")

def jsonl_chain(path, megabytes, pharmacies):
    with open(path, "w", encoding="utf-8") as out:
        rows = 0
        for p, n in shuffled_rows(out, megabytes, pharmacies, 19):
            out.write(f'{{"shop": "{30000 + p}", "at": "2024-05-19 23:05", "code": "MM{n:08d}", "name": "TOODE {n} ÕLI TBL N{n % 100}", '
                      f'"price": "{n % 97}.{n % 100:02d}", "qty": {n % 13}}}\n')
            rows += 1
    print(f"{path}: {rows} lines for {pharmacies} pharmacies")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["rax", "chain", "json", "jsonl"])
    parser.add_argument("path")
    parser.add_argument("mb", type=int)
    parser.add_argument("pharmacies", type=int, nargs="?", default=500)
    parser.add_argument("--truncated", type=int)
    parser.add_argument("--pharmacy", default="9998")
    args = parser.parse_args()
    if args.kind == "rax":
        rax(args.path, args.mb, args.truncated, args.pharmacy)
    elif args.kind == "json":
        json_feed(args.path, args.mb)
    elif args.kind == "jsonl":
        jsonl_chain(args.path, args.mb, args.pharmacies)
    else:
        chain(args.path, args.mb, args.pharmacies)
