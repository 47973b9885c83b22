"""Generates the Jepsen checker histories of BENCHMARKS.md ("Jepsen's standard
checkers"): a counter, a bank, a set-full and a queue, each correct by
construction. Usage: python3 scripts/jepsen-checker-histories.py DIR"""
import collections, os, random, sys
random.seed(7)
def op(f, ty, p, i, t, v=None):
    s = "{:type :%s, :f :%s" % (ty, f)
    if v is not None: s += ", :value %s" % v
    return s + ", :process %d, :time %d, :index %d}\n" % (p, t, i)

def counter(n, path):
    out=[]; i=0; state=0
    for k in range(n//2):
        p = k % 10
        if k % 3 == 0:
            out.append(op("read","invoke",p,i,i*1000)); i+=1
            out.append(op("read","ok",p,i,i*1000,state)); i+=1
        else:
            out.append(op("add","invoke",p,i,i*1000,1)); i+=1
            state+=1
            out.append(op("add","ok",p,i,i*1000,1)); i+=1
    open(path,"w").writelines(out)

def bank(n, path):
    out=[]; i=0; b=[10]*8
    for k in range(n//2):
        p = k % 10
        if k % 2 == 0:
            out.append(op("read","invoke",p,i,i*1000)); i+=1
            out.append(op("read","ok",p,i,i*1000,"{"+", ".join("%d %d"%(a,x) for a,x in enumerate(b))+"}")); i+=1
        else:
            f,t = random.sample(range(8),2); amt = random.randint(1,5)
            v = "{:from %d, :to %d, :amount %d}" % (f,t,amt)
            out.append(op("transfer","invoke",p,i,i*1000,v)); i+=1
            if b[f] >= amt:
                b[f]-=amt; b[t]+=amt; out.append(op("transfer","ok",p,i,i*1000,v))
            else:
                out.append(op("transfer","fail",p,i,i*1000,v))
            i+=1
    open(path,"w").writelines(out)

def setfull(adds, every, path):
    out=[]; i=0; s=[]
    for x in range(adds):
        out.append(op("add","invoke",0,i,i*1000,x)); i+=1
        s.append(x)
        out.append(op("add","ok",0,i,i*1000,x)); i+=1
        if x % every == 0:
            out.append(op("read","invoke",1,i,i*1000)); i+=1
            out.append(op("read","ok",1,i,i*1000,"["+" ".join(map(str,s))+"]")); i+=1
    out.append(op("read","invoke",1,i,i*1000)); i+=1
    out.append(op("read","ok",1,i,i*1000,"["+" ".join(map(str,s))+"]")); i+=1
    open(path,"w").writelines(out)

def queue(n, path):
    out=[]; i=0; q=[]; nxt=0
    q=collections.deque()
    for k in range(n//2):
        p=k%10
        if k%2==0:
            out.append(op("enqueue","invoke",p,i,i*1000,nxt)); i+=1
            q.append(nxt); out.append(op("enqueue","ok",p,i,i*1000,nxt)); i+=1; nxt+=1
        else:
            out.append(op("dequeue","invoke",p,i,i*1000)); i+=1
            out.append(op("dequeue","ok",p,i,i*1000,q.popleft())); i+=1
    open(path,"w").writelines(out)

out = sys.argv[1] if len(sys.argv) > 1 else "."
counter(1_000_000, os.path.join(out, "counter-1m.edn"))
bank(1_000_000, os.path.join(out, "bank-1m.edn"))
setfull(10_000, 10, os.path.join(out, "set-full-10k.edn"))
queue(1_000_000, os.path.join(out, "queue-1m.edn"))
