"""Soak and faults against a release `vigil serve` on loopback (docs/reliability.md): sessions at a
share of the node's frame capacity for a while, with a SIGKILL and restart in the middle, the
database locked for a few seconds, and (as root) a full disk. Reports errors, lost results, lost
or repeated webhooks and RSS growth. Standard library only.
usage: soak.py VIGIL_BINARY FRAMES_DIR --minutes M [--share 0.8] [--tmpfs]"""
import argparse, http.client, http.server, json, os, re, signal, sqlite3, subprocess, sys, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("frames")
parser.add_argument("--minutes", type=float, default=30)
parser.add_argument("--share", type=float, default=0.8)
parser.add_argument("--port", type=int, default=18190)
parser.add_argument("--tmpfs", action="store_true", help="put --data on a tmpfs and fill it up for a while (root only)")
args = parser.parse_args()

frames = [open(os.path.join(args.frames, f), "rb").read() for f in sorted(os.listdir(args.frames)) if f.endswith(".jpg")]
work = tempfile.mkdtemp(prefix="vigil-soak-")
data = os.path.join(work, "data")
if args.tmpfs:
    os.makedirs(data)
    # Room for the run's data (about 50 MB every 4 minutes at 13 sessions); the fault fills what is left.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % max(256, int(args.minutes * 40)), "tmpfs", data], check=True)

# The webhook receiver: counts deliveries by session.
deliveries, delivery_lock = {}, threading.Lock()
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with delivery_lock:
            deliveries[body["sessionId"]] = deliveries.get(body["sessionId"], 0) + 1
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a): pass
receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()

server = None
def start():
    global server
    server = subprocess.Popen([args.binary, "serve", "--demo", "--port", str(args.port), "--data", data, "--allow-private-webhooks",
                               "--no-rate-limits", "--connections-per-ip", "0"], stdout=subprocess.PIPE, stderr=open(os.path.join(work, "serve.log"), "a"))
    line = server.stdout.readline()
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", args.port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200: return json.loads(line) if line else {}
        except OSError:
            time.sleep(0.05)
    sys.exit("soak: the server did not start")

started = start()
key = started["demoTenant"]["apiKey"]
def call(method, path, body=None, bearer=key, headers=None, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", args.port, timeout=timeout)
    h = {"Authorization": "Bearer " + bearer}
    h.update(headers or {})
    c.request(method, path, body, h)
    r = c.getresponse()
    return r.status, r.read()
status, _ = call("PUT", "/v1/webhooks", json.dumps({"url": "http://127.0.0.1:%d/hook" % receiver.server_port}), headers={"Content-Type": "application/json"})
assert status == 200, status

def capacity():
    _, text = call("GET", "/metrics")
    return float(re.search(r"^vigil_frame_capacity (\S+)$", text.decode(), re.M).group(1))

# Sessions of 30 frames at 10 fps, then finish: each ends in a signed result and one webhook.
stats = {"sessions": 0, "finished": 0, "5xx": 0, "storage": 0, "busy": 0, "unreachable": 0}
def count_5xx(status, body):
    # 503 storage_unavailable is the answer while the database is locked or the disk full.
    with stats_lock: stats["storage" if status == 503 and b"storage_unavailable" in body else "5xx"] += 1
created, stats_lock, stop = [], threading.Lock(), threading.Event()
def device(k):
    while not stop.is_set():
        try:
            status, body = call("POST", "/v1/sessions", json.dumps({"policy": {"motions": ["turnLeft"], "count": 1, "type": "motion", "challengeTimeout": 60}}),
                                headers={"Content-Type": "application/json"})
            if status >= 500:
                count_5xx(status, body)
                time.sleep(0.5)
                continue
            session = json.loads(body)
            with stats_lock:
                stats["sessions"] += 1
                created.append(session["sessionId"])
            start_s, sent = time.time(), 0
            while sent < 30 and not stop.is_set():
                status, body = call("POST", "/v1/client/frames", frames[(k + sent) % len(frames)], bearer=session["sessionToken"],
                                    headers={"Content-Type": "image/jpeg", "Vigil-Capture-Time": str(int((time.time() - start_s) * 1000))})
                if status == 503 and b"server_busy" in body:
                    with stats_lock: stats["busy"] += 1
                    time.sleep(json.loads(body)["error"].get("retryAfterMs", 1000) / 1000)
                    continue
                if status >= 500: count_5xx(status, body)
                sent += 1
                time.sleep(max(0, start_s + sent * 0.1 - time.time()))
            status, body = call("POST", "/v1/client/finish", b"", bearer=session["sessionToken"])
            if status >= 500: count_5xx(status, body)
            elif status == 200:
                with stats_lock: stats["finished"] += 1
        except OSError:
            with stats_lock: stats["unreachable"] += 1   # the server is down (the SIGKILL): try again
            time.sleep(0.2)

def rss():
    try: return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/%d/status" % server.pid).read()).group(1)) / 1024
    except OSError: return float("nan")

sessions = max(1, int(capacity() * args.share / 10))
print("soak: %d sessions at 10 fps (%.0f%% of a measured capacity of %.0f frames/s) for %.1f min" % (sessions, args.share * 100, capacity(), args.minutes), flush=True)
threads = [threading.Thread(target=device, args=(k,)) for k in range(sessions)]
for t in threads: t.start()
duration = args.minutes * 60
t0, samples, faults = time.time(), [], []
killed = locked = filled = False
while time.time() - t0 < duration:
    time.sleep(5)
    elapsed = time.time() - t0
    samples.append((elapsed, rss()))
    if not killed and elapsed > duration * 0.4:
        server.send_signal(signal.SIGKILL)
        server.wait()
        down = time.time()
        start()
        faults.append("SIGKILL at %.0f s, serving again after %.1f s" % (elapsed, time.time() - down))
        killed = True
    elif not locked and elapsed > duration * 0.6:
        db = sqlite3.connect(os.path.join(data, "vigil.sqlite"), timeout=30)
        db.execute("BEGIN EXCLUSIVE")
        time.sleep(5)
        db.rollback()
        db.close()
        faults.append("database locked for 5 s at %.0f s" % elapsed)
        locked = True
    elif args.tmpfs and not filled and elapsed > duration * 0.75:
        filler = os.path.join(data, "filler")
        subprocess.run(["dd", "if=/dev/zero", "of=" + filler, "bs=1M"], stderr=subprocess.DEVNULL)   # until the disk is full
        time.sleep(5)
        os.remove(filler)
        faults.append("disk full for 5 s at %.0f s" % elapsed)
        filled = True
stop.set()
for t in threads: t.join()

# Every session created must have a stored, final result once finished, and one webhook each.
time.sleep(3)
final, missing = 0, []
for sid in created:
    status, body = call("GET", "/v1/sessions/" + sid)
    view = json.loads(body) if status == 200 else {}
    if view.get("status") in ("completed", "expired", "cancelled"): final += 1
    elif status != 200: missing.append(sid)
completed = [sid for sid in created if json.loads(call("GET", "/v1/sessions/" + sid)[1]).get("status") == "completed"]
deadline = time.time() + 120
while time.time() < deadline and len([s for s in completed if s in deliveries]) < len(completed): time.sleep(1)
with delivery_lock:
    lost = [s for s in completed if s not in deliveries]
    repeated = {s: n for s, n in deliveries.items() if n > 1}
# RSS growth after the restart: its warm-up (50-60% of the run) against the end (90-100%).
warm = [r for e, r in samples if duration * 0.5 < e < duration * 0.6]
late = [r for e, r in samples if e > duration * 0.9]
growth = (max(late) - min(warm)) / min(warm) * 100 if warm and late else float("nan")
print("faults: " + "; ".join(faults))
print("sessions created %d, finished by their client %d, completed %d, not found %d; 503 storage_unavailable %d; other 5xx %d; server_busy %d; "
      "requests while the server was down %d" % (len(created), stats["finished"], len(completed), len(missing), stats["storage"], stats["5xx"],
                                                  stats["busy"], stats["unreachable"]))
print("webhooks: %d completed sessions, %d delivered, %d lost, %d delivered more than once" % (len(completed), len(completed) - len(lost), len(lost), len(repeated)))
print("RSS of the restarted server after its warm-up %.0f MB, at the end %.0f MB (growth %.1f%%)" % (min(warm) if warm else float("nan"), max(late) if late else float("nan"), growth))
server.send_signal(signal.SIGTERM)
server.wait()
if args.tmpfs: subprocess.run(["umount", data])
