"""Hostile inputs, round two, against a running `vigil serve` on loopback: from 127.0.0.1 one
session token sends document photos two at a time (a new session when one is locked out), the
API key sends one-off document reads four at a time, and the token sends frames as text (refused
before any decoding); meanwhile 127.0.0.2 runs a session's frames at 10 a second. Prints that
session's frame latency p50/p95 and its refusals by code, the document answers by status, and
`vigil_frame_capacity` before and after. Standard library only.
usage: hostile-documents.py PORT API_KEY FRAME_JPEG DOCUMENT_JPEG SECONDS"""
import base64, collections, http.client, json, sys, threading, time

port, key, frame_path, document_path, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
frame, document = open(frame_path, "rb").read(), open(document_path, "rb").read()
stop = time.time() + seconds
answers = collections.Counter()
lock = threading.Lock()

def connect(source):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))

def call(c, method, path, body=None, headers=None):
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    try: code = json.loads(data).get("error", {}).get("code", "")
    except Exception: code = ""
    return r.status, code, data

def session(source, document=False):
    body = {"riskLevel": "low"}
    if document: body["document"] = {"types": ["passport", "idCard", "td2"]}
    _, _, data = call(connect(source), "POST", "/v1/sessions", json.dumps(body), {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    return json.loads(data)["sessionToken"]

def count(what):
    with lock: answers[what] += 1

def document_photos():
    token, c = session("127.0.0.1", document=True), connect("127.0.0.1")
    while time.time() < stop:
        try:
            status, code, _ = call(c, "POST", "/v1/client/document", document, {"Authorization": "Bearer " + token, "Content-Type": "image/jpeg"})
            count("photo %d %s" % (status, code))
            if status in (409, 410) or code == "session_locked": token = session("127.0.0.1", document=True)
            if status in (429, 503): time.sleep(0.05)
        except Exception:
            count("photo broken"); c = connect("127.0.0.1")

def document_reads():
    body, c = json.dumps({"image": base64.b64encode(document).decode()}), connect("127.0.0.1")
    while time.time() < stop:
        try:
            status, code, _ = call(c, "POST", "/v1/documents/read", body, {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
            count("read %d %s" % (status, code))
            if status in (429, 503): time.sleep(0.05)
        except Exception:
            count("read broken"); c = connect("127.0.0.1")

def text_frames(token):
    c = connect("127.0.0.1")
    while time.time() < stop:
        try:
            status, code, _ = call(c, "POST", "/v1/client/frames", b"x" * 100, {"Authorization": "Bearer " + token, "Content-Type": "text/plain", "Vigil-Capture-Time": "0"})
            count("text frame %d %s" % (status, code))
        except Exception:
            c = connect("127.0.0.1")
        time.sleep(0.005)

def capacity():
    _, _, data = call(connect("127.0.0.1"), "GET", "/metrics")
    return next((line.split()[1] for line in data.decode().splitlines() if line.startswith("vigil_frame_capacity ")), "?")

before = capacity()
attackers = [threading.Thread(target=document_photos) for _ in range(2)] + [threading.Thread(target=document_reads) for _ in range(4)] \
    + [threading.Thread(target=text_frames, args=(session("127.0.0.1"),))]
for t in attackers: t.daemon = True; t.start()
time.sleep(1)

latencies, refused, n = [], collections.Counter(), 0
token, c, start = session("127.0.0.2"), connect("127.0.0.2"), time.time()
while time.time() < stop - 1:
    n += 1
    unique = frame[:2] + b"\xff\xfe\x00\x06" + n.to_bytes(4, "big") + frame[2:]   # a comment: not a repeated frame
    try:
        t0 = time.perf_counter()
        status, code, _ = call(c, "POST", "/v1/client/frames", unique, {"Authorization": "Bearer " + token, "Content-Type": "image/jpeg",
                                                                      "Vigil-Capture-Time": str(int((time.time() - start) * 1000))})
        latencies.append((time.perf_counter() - t0) * 1000)
        if status != 200: refused["%d %s" % (status, code)] += 1
        if code == "session_finished": token = session("127.0.0.2")
    except Exception:
        refused["broken"] += 1; c = connect("127.0.0.2")
    time.sleep(0.1)
after = capacity()
latencies.sort()
pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")
print("frames from 127.0.0.2: %d sent, p50 %.1f ms, p95 %.1f ms, refused %s" % (len(latencies), pct(0.5), pct(0.95), dict(refused)))
print("attackers' answers: %s" % dict(sorted(answers.items())))
print("vigil_frame_capacity before %s, after %s" % (before, after))
