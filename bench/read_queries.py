#!/usr/bin/env python3
"""p50/p99 latency of SNAPSHOT.md's five read queries on a snapshot, over many
random arguments. Usage: read_queries.py SNAPSHOT [ROUNDS]"""
import random, sqlite3, statistics, sys, time

path = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
rng = random.Random(1)
aptcodes = [r[0] for r in db.execute("SELECT aptcode FROM items")]
offers = db.execute("SELECT pharmacy_id, aptcode FROM offers WHERE aptcode IN (SELECT aptcode FROM items ORDER BY random() LIMIT 50)").fetchall()
atc = [r[0] for r in db.execute("SELECT code FROM atc")]
places = db.execute("SELECT latitude, longitude FROM pharmacies WHERE latitude IS NOT NULL").fetchall()
words = [r[0].split()[0][:3].lower() for r in db.execute("SELECT name FROM items LIMIT 2000")]

queries = {
    "item search (prefix)": ("SELECT aptcode FROM items_search WHERE items_search MATCH ? LIMIT 50",
                             lambda: (rng.choice(words) + "*",)),
    "offers of one item": ("""SELECT o.pharmacy_id, p.name, p.region, p.latitude, p.longitude, o.price_cents
                              FROM offers o JOIN pharmacies p ON p.id = o.pharmacy_id
                              WHERE o.aptcode = ? ORDER BY o.price_cents LIMIT 50""",
                           lambda: (rng.choice(aptcodes),)),
    "offer details": ("""SELECT o.*, i.*, r.rate, r.limit_price_cents, r.diagnoses, r.info,
                            (SELECT group_concat(code || '=' || text) FROM diagnosis_legend)
                         FROM offers o JOIN items i ON i.aptcode = o.aptcode
                         LEFT JOIN reimbursements r ON r.package_code = i.package_code
                         WHERE o.pharmacy_id = ? AND o.aptcode = ?""",
                      lambda: rng.choice(offers)),
    "ATC children": ("SELECT code, name, child_count, item_count FROM atc WHERE parent = ? ORDER BY code",
                     lambda: (rng.choice(atc),)),
    "pharmacies near a point": ("""SELECT id, name, latitude, longitude FROM pharmacies
                                   WHERE latitude BETWEEN ? - 0.1 AND ? + 0.1 AND longitude BETWEEN ? - 0.2 AND ? + 0.2""",
                                lambda: (lambda p: (p[0], p[0], p[1], p[1]))(rng.choice(places))),
}
print("| query | p50 ms | p99 ms |")
print("| --- | --- | --- |")
for name, (sql, args) in queries.items():
    times = []
    for _ in range(rounds):
        a = args()
        t = time.perf_counter()
        db.execute(sql, a).fetchall()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(f"| {name} | {times[len(times) // 2]:.3f} | {times[int(len(times) * 0.99)]:.3f} |")
