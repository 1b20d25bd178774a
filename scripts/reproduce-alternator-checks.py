#!/usr/bin/env python3
"""The checks of scripts/reproduce-alternator.sh, for one distribution.

    reproduce-alternator-checks.py check   OUT DIST AGENTS THREADS TOTAL SECONDS TOLERANCE ENDPOINT
    reproduce-alternator-checks.py control OUT DIST AGENTS THREADS TOTAL SECONDS TOLERANCE ENDPOINT

"check" reads the measured run (OUT/run.json, run.out, hlogmerge.tsv),
prints one client's YCSB lines beside the fleet's and the checks, writes
OUT/summary.txt (one line of the final table) and exits 0 when every check
held, 1 when one failed, 3 when only the target was missed.

"control" judges a missed target with the control run (OUT/control.json:
one client against the null database at the same rate and threads): when
it missed the target too, or the clients' CPU was above 90 %, the box
missed it (exit 3: said, not failed); otherwise the fleet did (exit 1).
"""
import json
import os
import re
import sys

mode, out, dist, agents, threads, total, secs, tol, endpoint = sys.argv[1:10]
agents, threads, total, secs, tol = int(agents), int(threads), int(total), int(secs), float(tol)
doc = json.load(open(os.path.join(out, "run.json")))
fleet_report = open(os.path.join(out, "run.out")).read()
summary_path = os.path.join(out, "summary.txt")


def ycsb(report, section, metric):
    m = re.search(r"^\[" + re.escape(section) + r"\], " + re.escape(metric) + r", (\S+)$", report, re.M)
    return float(m.group(1)) if m else None


fleet_tp = ycsb(fleet_report, "OVERALL", "Throughput(ops/sec)") or 0.0
held = 100 * fleet_tp / total


def summary(checks):
    rp = ycsb(fleet_report, "READ", "99thPercentileLatency(us)") or 0
    up = ycsb(fleet_report, "UPDATE", "99thPercentileLatency(us)") or 0
    with open(summary_path, "w") as f:
        f.write(f"{dist:13} {fleet_tp:12,.1f} {held:9.1f}% {rp:16,.0f} {up:16,.0f}  {checks}\n")


def control():
    ctl = json.load(open(os.path.join(out, "control.json")))
    ctl_held = 100 * ctl["throughput_ops_per_sec"] / total
    cpus = [doc.get("mean_client_cpu_percent")]
    for a in doc["agents"]:
        if isinstance(a.get("summary"), dict):
            cpus.append(a["summary"].get("mean_client_cpu_percent"))
    cpu = max([c for c in cpus if c is not None] or [0])
    why = []
    if ctl_held < 100 - tol:
        why.append(f"one client against null at the same rate ran only {ctl_held:.1f} %")
    if cpu > 90:
        why.append(f"the clients' CPU was {cpu:.0f} %")
    if why:
        print(f"check: target: the fleet ran {held:.1f} % of {total:,} ops/s, and the box could not do better: {' and '.join(why)}: "
              f"the box missed the target, not the fleet: not failed (lower TOTAL, or run on a quieter box)")
        summary("ok (the box missed the target)")
        return 3
    print(f"check: target: the fleet ran {held:.1f} % of {total:,} ops/s where one client against null at the same rate ran "
          f"{ctl_held:.1f} % and the clients' CPU was {cpu:.0f} %: the fleet missed its target: FAIL")
    summary("target FAIL (the fleet missed it)")
    return 1


def check_run():
    runs = [a for a in doc["agents"] if a["state"] == "done"]
    if len(runs) != agents:
        print(f"check: {agents - len(runs)} of {agents} agents did not finish: FAIL")
        summary("agents lost: FAIL")
        return 1
    one = runs[0]
    lines = [("[OVERALL], Throughput(ops/sec)", "OVERALL", "Throughput(ops/sec)", "{:,.1f}"),
             ("[READ], Operations", "READ", "Operations", "{:,.0f}"),
             ("[READ], 99thPercentileLatency(us)", "READ", "99thPercentileLatency(us)", "{:,.0f}"),
             ("[UPDATE], Operations", "UPDATE", "Operations", "{:,.0f}"),
             ("[UPDATE], 99thPercentileLatency(us)", "UPDATE", "99thPercentileLatency(us)", "{:,.0f}")]
    fmt = lambda f, v: "-" if v is None else f.format(v)
    print(f"# {agents} agents x {threads} threads, fleet target {total:,} ops/s ({total / agents:,.1f} a client), "
          f"{secs} s, workloads/alternator-a-{dist} against dynalite ({endpoint})")
    print("# published: 15 client VMs x 50 threads, 120,000 ops/s in all, each client's report ~8,000 ops/s")
    print(f"{'':38} {'one client (' + one['name'] + ')':>22} {'fleet (' + str(agents) + ' merged)':>22}")
    for label, sec, metric, f in lines:
        print(f"{label:38} {fmt(f, ycsb(one['report'], sec, metric)):>22} {fmt(f, ycsb(fleet_report, sec, metric)):>22}")
    per = {k: [ycsb(a["report"], s, m) for a in runs] for k, s, m in
           [("tp", "OVERALL", "Throughput(ops/sec)"), ("rp99", "READ", "99thPercentileLatency(us)"),
            ("up99", "UPDATE", "99thPercentileLatency(us)")]}
    print(f"# the {agents} clients' own reports: throughput {min(per['tp']):,.1f}-{max(per['tp']):,.1f} ops/s, "
          f"READ p99 {min(per['rp99']):,.0f}-{max(per['rp99']):,.0f} us, UPDATE p99 {min(per['up99']):,.0f}-{max(per['up99']):,.0f} us")
    rts = [p["runtime_ms"] / 1000 for a in runs for p in a["phases"] if p["phase"] == "run"]
    print(f"# the clients' own runs took {min(rts):.1f}-{max(rts):.1f} s")
    ok = True

    def check(name, good, text):
        nonlocal ok
        ok = ok and good
        print(f"check: {name}: {text}: {'ok' if good else 'FAIL'}")

    target_ok = held >= 100 - tol
    if target_ok:
        print(f"check: target: the fleet ran {held:.1f} % of its fixed total {total:,} ops/s (allowed {tol:g} % short): ok")
    else:
        print(f"check: target: the fleet ran {held:.1f} % of its fixed total {total:,} ops/s (allowed {tol:g} % short): "
              f"missed; a control run tells whether the box or the fleet missed it")
    one_tp = ycsb(one["report"], "OVERALL", "Throughput(ops/sec)")
    dev = 100 * abs(fleet_tp - agents * one_tp) / (agents * one_tp)
    check("throughput", dev <= tol, f"fleet {fleet_tp:,.1f} ops/s = {fleet_tp / one_tp:.2f} x one client's {one_tp:,.1f} "
          f"({dev:.1f} % from {agents} x, allowed {tol:g} %); sum of the clients' {sum(per['tp']):,.1f}")
    fleet_ops = sum(ycsb(fleet_report, op, "Operations") or 0 for op in ("READ", "UPDATE", "READ-FAILED", "UPDATE-FAILED"))
    agent_ops = sum(p["operations"] for a in runs for p in a["phases"] if p["phase"] == "run")
    check("operations", fleet_ops == agent_ops, f"fleet {fleet_ops:,.0f} = the sum of the clients' {agent_ops:,.0f}")

    rows = {}
    tsv = os.path.join(out, "hlogmerge.tsv")
    if os.path.exists(tsv):
        table = [l.rstrip("\n").split("\t") for l in open(tsv)]
        rows = {(r[0], r[1]): dict(zip(table[0], r)) for r in table[1:]}
    for op, key in (("READ", "rp99"), ("UPDATE", "up99")):
        p99 = int(ycsb(fleet_report, op, "99thPercentileLatency(us)"))
        lo, hi = min(per[key]), max(per[key])
        inside = lo <= p99 <= hi
        avg = sum(per[key]) / len(per[key])
        if (op, "agents") in rows:
            m = rows[(op, "agents")]
            exact = int(m["p99_us"]) == p99 and int(m["count"]) == int(ycsb(fleet_report, op, "Return=OK") or 0)
            own = all(rows.get((op, "agent:" + a["name"]), {}).get("p99_us") == str(int(ycsb(a["report"], op, "99thPercentileLatency(us)")))
                      for a in runs)
            check(f"{op} p99", exact and own,
                  f"fleet {p99:,} us; the {m['agents']} clients' histograms added up from the HDR log: {int(m['count']):,} values, "
                  f"p99 {int(m['p99_us']):,} us (the same: {'yes' if exact else 'no'}; each client's own p99 in the log = its report's: "
                  f"{'yes' if own else 'no'}); the clients' own p99s {lo:,.0f}..{hi:,.0f} us (inside: {'yes' if inside else 'no'}), "
                  f"their average {avg:,.0f} us")
        else:
            check(f"{op} p99", inside, f"fleet {p99:,} us within the clients' own p99s {lo:,.0f}..{hi:,.0f} us "
                  f"(no HDR log merge: a weaker check); their average {avg:,.0f} us")
    summary(("ok" if target_ok else "target missed") if ok else "FAIL")
    if not ok:
        return 1
    return 0 if target_ok else 3


sys.exit(control() if mode == "control" else check_run())
