"""Hostile clients against a running `vigil serve` on loopback (issue 17's must-reach): one
address (127.0.0.1) holds slowloris connections, posts progressive scan bombs and floods
unauthenticated large bodies, while another address (127.0.0.2) polls /healthz and runs a
session's frames. Prints p50/p95 of the second address's answers. Standard library only.
usage: hostile.py PORT API_KEY FRAME_JPEG SECONDS"""
import http.client, json, socket, sys, threading, time

port, key, frame_path, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
frame = open(frame_path, "rb").read()
stop = time.time() + seconds

def connect(source):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    return c

def session(source):
    c = connect(source)
    c.request("POST", "/v1/sessions", body=json.dumps({"riskLevel": "low"}), headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    return json.loads(c.getresponse().read())["sessionToken"]

def slowloris():
    held = []
    while time.time() < stop:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.1", 0))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            held.append(s)
        except OSError:
            time.sleep(0.2)
        for s in list(held):
            try: s.sendall(b"X-Slow: 1\r\n")
            except OSError: held.remove(s)
        time.sleep(0.05)

def scan_bombs(token):
    # A baseline JPEG marked progressive with 200,000 empty scans.
    sof = frame.index(b"\xff\xc0")
    bomb = frame[:sof] + b"\xff\xc2" + frame[sof + 2:-2] + b"\xff\xda\x00\x08\x01\x01\x00\x01\x3f\x00" * 200000 + b"\xff\xd9"
    while time.time() < stop:
        try:
            c = connect("127.0.0.1")
            c.request("POST", "/v1/client/frames", body=bomb, headers={"Authorization": "Bearer " + token, "Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"})
            c.getresponse().read()
        except Exception:
            time.sleep(0.1)

def body_flood():
    while time.time() < stop:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.1", 0))
            s.sendall(b"POST /v1/compare HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 17000000\r\n\r\n" + b"x" * 65536)
            s.recv(4096)
            s.close()
        except OSError:
            time.sleep(0.05)

def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")

bomb_token = session("127.0.0.1")
attackers = [threading.Thread(target=slowloris)] + [threading.Thread(target=scan_bombs, args=(bomb_token,)) for _ in range(2)] \
    + [threading.Thread(target=body_flood) for _ in range(4)]
for t in attackers: t.daemon = True; t.start()
time.sleep(1)

health, frames, failures, n = [], [], 0, 0
token = session("127.0.0.2")
c = connect("127.0.0.2")
start = time.time()
while time.time() < stop - 1:
    try:
        t0 = time.perf_counter(); c.request("GET", "/healthz"); c.getresponse().read(); health.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        n += 1
        unique = frame[:2] + b"\xff\xfe\x00\x06" + n.to_bytes(4, "big") + frame[2:]   # a comment: not a repeated frame
        c.request("POST", "/v1/client/frames", body=unique, headers={"Authorization": "Bearer " + token, "Content-Type": "image/jpeg",
                                                                  "Vigil-Capture-Time": str(int((time.time() - start) * 1000))})
        r = c.getresponse(); r.read(); frames.append((time.perf_counter() - t0) * 1000)
        if r.status >= 500: failures += 1
    except Exception:
        failures += 1
        c = connect("127.0.0.2")
    time.sleep(0.1)
print("under slowloris, scan bombs and body floods from 127.0.0.1: from 127.0.0.2 /healthz p50 %.1f ms p95 %.1f ms (%d), frames p50 %.1f ms p95 %.1f ms (%d), 5xx or broken %d"
      % (pct(health, 0.5), pct(health, 0.95), len(health), pct(frames, 0.5), pct(frames, 0.95), len(frames), failures))
