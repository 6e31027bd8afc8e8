"""Server budgets of SPEC section 12, against a running `vigil serve`: frame latency on an idle
server, and 50 sessions at 10 fps each arriving at once (admission control keeps the admitted
ones within the server's frame capacity; the others wait for a place). With several nodes
(comma-separated URLs), sessions go to them in turn, one connection each, as a round-robin load
balancer with keep-alive sends them. Standard library only (http.client, threads).
usage: bench_server.py BASE_URL[,BASE_URL...] API_KEY FRAMES_DIR OUT_TOKEN_FILE [LABEL]"""
import http.client, json, os, re, sys, threading, time
from urllib.parse import urlparse

bases, api_key, frames_dir, token_file = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4]
label = "[%s] " % sys.argv[5] if len(sys.argv) > 5 else ""
nodes = [urlparse(b) for b in bases]
frames = [open(os.path.join(frames_dir, f), "rb").read() for f in sorted(os.listdir(frames_dir)) if f.endswith(".jpg")]
# Challenges that wait long, and one still frame per session: the sessions stay open while measured
# (a real capture varies frame to frame, which costs the same analysis).
policy = {"policy": {"motions": ["turnLeft"], "count": 1, "type": "motion", "challengeTimeout": 60}}

def connection(node=0):
    url = nodes[node % len(nodes)]
    return http.client.HTTPConnection(url.hostname, url.port, timeout=30)

def create_session(c):
    c.request("POST", "/v1/sessions", json.dumps(policy), {"Authorization": "Bearer " + api_key, "Content-Type": "application/json"})
    r = c.getresponse()
    body = json.loads(r.read())
    assert r.status == 201, body
    return body["sessionToken"]

def send(c, token, jpeg, ms):
    start = time.perf_counter()
    c.request("POST", "/v1/client/frames", jpeg, {"Authorization": "Bearer " + token, "Content-Type": "image/jpeg", "Vigil-Capture-Time": str(ms)})
    r = c.getresponse()
    body = r.read()
    if r.status not in (200, 503) and os.environ.get("VIGIL_BENCH_VERBOSE"): print(r.status, body[:200], file=sys.stderr)
    return (time.perf_counter() - start) * 1000, r.status, body

def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))] if s else float("nan")

c = connection()
with open(token_file, "w") as f:
    f.write(create_session(c))   # for the status-poll run with wrk

# Idle server: one session, frames back to back.
token = create_session(c)
latencies = []
for i in range(150):
    ms, status, _ = send(c, token, frames[0], i * 100)
    if status != 200:
        token = create_session(c)
        continue
    latencies.append(ms)
print(label + "POST /v1/client/frames, idle server, one 640x480 JPEG: p50 %.1f ms, p95 %.1f ms (%d frames; budget p50 <= 30 ms)"
      % (pct(latencies, 0.5), pct(latencies, 0.95), len(latencies)))

# 50 sessions at 10 fps, 60 frames (6 s) each once admitted, one connection per session. A frame
# answered 503 server_busy (admission control) waits as long as the server says, as the page does.
SESSION_FRAMES = 60
results, refusals, waits, lock = [], [], [], threading.Lock()
def device(k):
    c = connection(k)
    token = create_session(c)
    start = time.perf_counter()
    admitted_at, served, i = None, 0, 0
    while served < SESSION_FRAMES and time.perf_counter() - start < 120:
        if admitted_at is not None:
            due = admitted_at + i * 0.1
            delay = due - time.perf_counter()
            if delay > 0: time.sleep(delay)
        ms, status, body = send(c, token, frames[k % len(frames)], int((time.perf_counter() - start) * 1000))
        i += 1
        if status == 503:
            wait_ms = json.loads(body)["error"].get("retryAfterMs", 1000)
            # 2000 ms: a session waiting for a place, refused on its headers; shorter: a frame shed.
            with lock: refusals.append((ms, wait_ms == 2000))
            time.sleep(wait_ms / 1000)
            continue
        if admitted_at is None:
            admitted_at, i = time.perf_counter(), 1
            with lock: waits.append(admitted_at - start)
        served += 1
        with lock: results.append((ms, status))
    c.request("POST", "/v1/client/cancel", b"", {"Authorization": "Bearer " + token})
    c.getresponse().read()
threads = [threading.Thread(target=device, args=(k,)) for k in range(50)]
t0 = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.perf_counter() - t0
ok = [ms for ms, status in results if status == 200]
codes = {}
for _, status in results: codes[status] = codes.get(status, 0) + 1
capacity, refused = 0.0, {}
for node in range(len(nodes)):
    c = connection(node)
    c.request("GET", "/metrics")
    metrics = c.getresponse().read().decode()
    capacity += float(re.search(r"^vigil_frame_capacity (\S+)$", metrics, re.M).group(1))
    for m in re.finditer(r'^vigil_frames_refused_total\{reason="(\w+)"\} (\d+)$', metrics, re.M):
        refused[m.group(1)] = refused.get(m.group(1), 0) + int(m.group(2))
waiting = [ms for ms, waits in refusals if waits]
shed = [ms for ms, waits in refusals if not waits]
print(label + "50 sessions at 10 fps, %d frames each once admitted (admission control): admitted frames p50 %.0f ms, p95 %.0f ms; "
      "served %.0f frames/s; statuses %s; wait for a place p50 %.1f s, max %.1f s; %d of 50 sessions served"
      % (SESSION_FRAMES, pct(ok, 0.5), pct(ok, 0.95), len(results) / elapsed, dict(sorted(codes.items())),
         pct(waits, 0.5), max(waits) if waits else float("nan"), len(waits)))
print(label + "503 server_busy: %d to sessions waiting for a place (on the headers), p95 %.1f ms; %d frames shed, p95 %.1f ms; server counts %s"
      % (len(waiting), pct(waiting, 0.95), len(shed), pct(shed, 0.95), refused))
print(label + "frame capacity measured by the server(s): %.0f frames/s, %d sessions at 10 fps" % (capacity, int(capacity // 10)))
