# Threads, zlib, json, decimal and hashlib: results only, no timings.
import decimal
import hashlib
import json
import queue
import threading
import zlib

decimal.getcontext().prec = 60
third = decimal.Decimal(1) / decimal.Decimal(3)
root2 = decimal.Decimal(2).sqrt()
print("decimal", third, root2, (root2 * root2).quantize(decimal.Decimal("1e-50")))

blob = json.dumps({"n": list(range(300)), "s": "phybin " * 50}, sort_keys=True).encode()
packed = zlib.compress(blob, 9)
print("zlib", len(blob), len(packed), zlib.crc32(blob), zlib.decompress(packed) == blob)
print("sha256", hashlib.sha256(blob).hexdigest())
print("md5", hashlib.md5(packed).hexdigest(), "blake2b", hashlib.blake2b(blob, digest_size=16).hexdigest())

results = queue.Queue()
lock = threading.Lock()
shared = {"count": 0}


def worker(k):
    digest = hashlib.sha1()
    for i in range(2000):
        digest.update(str(i * k).encode())
        with lock:
            shared["count"] += 1
    results.put((k, digest.hexdigest()))


threads = [threading.Thread(target=worker, args=(k,)) for k in range(1, 9)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("threads", shared["count"], sorted(results.get() for _ in threads)[:3])
print("json", json.loads(json.dumps({"pi": 3.141592653589793, "list": [1, 2.5, None, True]})))
