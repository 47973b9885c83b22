#!/usr/bin/env python3
"""A Jepsen counter or bank history, valid by construction, for BENCHMARKS.md: scripts/checker-history.py counter|bank OPS PROCESSES > out.edn"""
import random, sys
kind, n, procs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(1)
out = sys.stdout
under = [None] * procs
total, accounts = 0, [100] * 8
i = 0
def emit(ty, f, value, p):
    global i
    out.write("{:index %d, :type :%s, :f :%s, :value %s, :process %d, :time %d}\n" % (i, ty, f, value, p, i * 1000))
    i += 1
while i < n:
    p = r.randrange(procs)
    u = under[p]
    if u is None:
        if kind == "counter":
            if r.random() < 0.7:
                v = r.randrange(1, 6); emit("invoke", "add", v, p); under[p] = ("add", v)
            else:
                emit("invoke", "read", "nil", p); under[p] = ("read", 0)
        else:
            if r.random() < 0.6:
                a, b = r.sample(range(8), 2); amt = r.randrange(1, 6)
                v = "{:from %d, :to %d, :amount %d}" % (a, b, amt)
                emit("invoke", "transfer", v, p); under[p] = ("transfer", (a, b, amt, v))
            else:
                emit("invoke", "read", "nil", p); under[p] = ("read", 0)
    else:
        f, v = u
        under[p] = None
        ty = r.choices(["ok", "fail", "info"], [95, 3, 2])[0]
        if f == "add":
            if ty != "fail": total += v
            emit(ty, "add", v, p)
        elif f == "transfer":
            a, b, amt, text = v
            if ty == "ok" and accounts[a] < amt: ty = "fail"
            if ty != "fail" and accounts[a] >= amt:
                accounts[a] -= amt; accounts[b] += amt
            emit(ty, "transfer", text, p)
        elif ty == "ok":
            if kind == "counter": emit("ok", "read", total, p)
            else: emit("ok", "read", "{" + ", ".join("%d %d" % (k, b) for k, b in enumerate(accounts)) + "}", p)
        else:
            emit(ty, "read", "nil", p)
