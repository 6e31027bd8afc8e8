// Vigil capture page: the identity document when the policy asks for one (rear camera, a photo
// read by the server about once a second), then camera -> one JPEG per request to the device
// API -> live guidance, one challenge at a time, reflection flashes, result. Every server answer is untrusted: only known
// fields and values are used, and text is set with textContent, never as HTML.
"use strict";
(() => {
  const LOCALES = ["en", "pt-BR", "es", "fr", "zh-Hans"];
  const MOTIONS = ["blink", "mouthOpen", "turnLeft", "turnRight", "nod", "shake"];
  const FEEDBACK = ["faceNotFound", "multipleFaces", "faceTooFar", "faceTooClose", "faceNotCentered", "tooDark", "tooBright", "blurry",
    "holdStill", "motionIssue", "challengeTimeout", "lightingIssue", "deviceIssue", "identityChanged", "faceMismatch", "documentIssue", "unknown"];
  const DOCUMENT_TYPES = ["passport", "idCard", "td2", "visa"];
  const IDENTITY_DOCUMENTS = ["passport", "idCard", "td2"];
  const DOCUMENT_GUIDANCE = ["noDocument", "oneDocument", "tooFar", "glare", "blurry", "holdStill", "notFlat", "unreadable", "typeNotAccepted", "expired", "noPortrait"];
  // The frame's proportions: a passport's data page, an ID-1 card, a TD2 card.
  const DOCUMENT_ASPECT = { passport: 125 / 88, idCard: 85.6 / 54, td2: 105 / 74, visa: 120 / 80 };
  const DOCUMENT_PHOTO_INTERVAL_MS = 1000;  // one photo read at a time, about one a second
  const DOCUMENT_MAX_PIXELS = 2100000;      // about 2 MP: enough for the zone's characters, quick to send
  const UPLOAD_INTERVAL_MS = 100;  // at most 10 uploads a second, never more than the camera delivers
  const UPLOAD_SLACK_MS = 20;      // camera jitter tolerated around that interval
  const POLL_INTERVAL_MS = 25;     // checksum polling where there is no frame callback
  const ANALYSIS_SHORT_SIDE = 480; // frames are scaled down to this shorter side, keeping their aspect ratio
  const JPEG_QUALITY = 0.85;
  const NOT_A_COLOUR_CAMERA = /\b(ir|infra-?red|depth|tof)\b/i;   // labels of infrared and depth cameras
  const FILL_LIGHT_GRACE_MS = 2500;  // the fill light gets this long before the person is asked for more light
  // One upload at a time: two in flight may reach the server out of order, and a capture time
  // going backwards is a replay sign. A frame that comes while one is in flight is dropped.
  const MAX_IN_FLIGHT = 1;
  const REQUEST_TIMEOUT_MS = 10000;
  const NETWORK_GIVE_UP_MS = 15000;
  const CAMERA_TIMEOUT_MS = 15000;
  const LOCATION_TIMEOUT_MS = 10000;

  const $ = (id) => document.getElementById(id);
  const query = new URLSearchParams(location.search);
  const token = location.hash.slice(1);
  // The token leaves the address bar (and the history) at once; it only travels in headers.
  history.replaceState(null, "", location.pathname + location.search);

  let strings = {};
  let stream = null, start = 0, timers = [], inFlight = 0, sequence = 0, applied = 0;
  let preferredCamera = null, cameraRefused = false, fillLightSince = null;
  let captureRun = 0, lastCaptureMs = -1, nextDueMs = 0, pausedUntil = 0, mediaAnchor = null, lastChecksum = null, sentPrints = [];
  let finished = false, capturing = false, reflection = null, speak = false, lastSpoken = "";
  let failingSince = null, failures = 0, sessionInfo = null, lastChallenge = null, parentOrigin = null;
  let documentRun = 0, documentDetected = false;

  // --- native bridge -------------------------------------------------------------------------
  const bridge = {
    send(kind, data) {
      const envelope = JSON.stringify(data === undefined ? { source: "vigil", version: 1, kind } : { source: "vigil", version: 1, kind, data });
      try {
        if (window.VigilNative && typeof window.VigilNative.postMessage === "function") window.VigilNative.postMessage(envelope);
        else if (parentOrigin && window.parent !== window) window.parent.postMessage(envelope, parentOrigin);   // never "*"
      } catch (e) { /* a broken host bridge must not break the capture */ }
    },
    event(type, detail) { bridge.send("event", Object.assign({ type }, detail || {})); },
  };
  window.onVigilHostCommand = (command) => {
    if (command === "destroy") teardown(true);   // anything else is ignored
  };

  // --- strings ---------------------------------------------------------------------------------
  function pickLocale(requested) {
    const candidates = [requested].concat(navigator.languages || [navigator.language]).filter((x) => typeof x === "string");
    for (const c of candidates) {
      const lower = c.toLowerCase();
      const exact = LOCALES.find((l) => l.toLowerCase() === lower);
      if (exact) return exact;
      if (lower.startsWith("pt")) return "pt-BR";
      if (lower.startsWith("zh")) return "zh-Hans";
      const base = LOCALES.find((l) => l.toLowerCase() === lower.split("-")[0]);
      if (base) return base;
    }
    return "en";
  }
  async function loadStrings(locale, overrides) {
    const load = async (l) => (await request("GET", "/c/assets/i18n-" + l + ".json", null, false)).body || {};
    const english = await load("en");
    strings = locale === "en" ? english : Object.assign({}, english, await load(locale));
    for (const [key, text] of Object.entries(overrides && typeof overrides === "object" ? overrides : {})) {
      if (typeof strings[key] === "string" && typeof text === "string") strings[key] = text;
    }
    document.documentElement.lang = locale;
    for (const el of document.querySelectorAll("[data-text]")) el.textContent = t(el.dataset.text);
  }
  const t = (key, values) => {
    let text = typeof strings[key] === "string" ? strings[key] : key;
    for (const [k, v] of Object.entries(values || {})) text = text.split("{" + k + "}").join(String(v));
    return text;
  };
  const feedbackText = (code) => t("feedback." + (FEEDBACK.includes(code) ? code : "unknown"));

  // --- screens ---------------------------------------------------------------------------------
  // Where the camera permission lives, for the camera-denied help: an app's WebView, iOS,
  // Android or a computer's browser.
  function platform() {
    const ua = navigator.userAgent || "";
    const ios = /iPhone|iPad|iPod/.test(ua) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
    if (window.VigilNative || /; wv\)/.test(ua) || (ios && !/Safari\//.test(ua))) return "app";
    if (ios) return "ios";
    return /Android/.test(ua) ? "android" : "desktop";
  }
  function show(name) {
    for (const s of document.querySelectorAll(".screen")) s.toggleAttribute("data-active", s.id === "screen-" + name);
    const heading = $("screen-" + name).querySelector("[tabindex='-1']");
    if (heading) heading.focus();
  }
  // Every error screen says what to do next; those a fresh start can mend offer one.
  const RETRYABLE = ["camera_denied", "no_camera", "camera_in_use", "camera_timeout", "camera_failed", "network_lost", "server"];
  function fail(code) {
    if (finished) return;
    finished = true;
    stopCamera();
    $("error-title").textContent = t("error." + code);
    $("error-detail").textContent = t(code === "camera_denied" ? "help.camera_denied." + platform() : "help." + code);
    $("error-retry").hidden = !RETRYABLE.includes(code);
    show("error");
    bridge.send("error", { code, message: t("error." + code) });
  }
  function setPrompt(text) {
    if ($("prompt").textContent === text) return;
    $("prompt").textContent = text;
    if (speak && text && text !== lastSpoken && "speechSynthesis" in window) {
      lastSpoken = text;
      speechSynthesis.cancel();
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = document.documentElement.lang;
      speechSynthesis.speak(utterance);
    }
  }

  // --- network ---------------------------------------------------------------------------------
  async function request(method, path, body, authorised = true, headers = {}) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    try {
      const h = Object.assign({}, headers);
      if (authorised) h.Authorization = "Bearer " + token;
      const res = await fetch(path, { method, body, headers: h, signal: controller.signal, cache: "no-store", credentials: "omit" });
      let parsed = null;
      try { parsed = await res.json(); } catch (e) { parsed = null; }
      return { status: res.status, body: parsed && typeof parsed === "object" ? parsed : null };
    } finally {
      clearTimeout(timer);
    }
  }
  const errorCode = (answer) => (answer.body && answer.body.error && typeof answer.body.error.code === "string") ? answer.body.error.code : "";

  function sessionError(answer) {
    const code = errorCode(answer);
    if (answer.status === 401) return "invalid_link";
    if (code === "session_expired") return "session_expired";
    if (code === "session_locked") return "locked_out";
    if (code === "session_finished") return "session_finished";
    return "server";
  }

  // --- camera ----------------------------------------------------------------------------------
  // Whether this browser can capture at all; if not, its error screen shows.
  function supported() {
    if (navigator.mediaDevices && typeof navigator.mediaDevices.getUserMedia === "function" && typeof fetch === "function") return true;
    fail("unsupported");
    return false;
  }
  // The stream `open` gives, within CAMERA_TIMEOUT_MS; null once the error screen shows why not
  // (timed out, denied, missing, in use), or when the page finished meanwhile.
  async function openWithin(open) {
    let timedOut = false;
    const timeout = setTimeout(() => { timedOut = true; fail("camera_timeout"); }, CAMERA_TIMEOUT_MS);
    try {
      const opened = await open();
      if (timedOut || finished) { for (const track of opened.getTracks()) track.stop(); return null; }
      return opened;
    } catch (e) {
      if (!timedOut) fail(cameraFailure(e));
      return null;
    } finally {
      clearTimeout(timeout);
    }
  }
  // A request that did not reach the server: how long to wait before the next one (0.2 s
  // doubling to 2 s), or null once the network is given up on and its screen shows.
  function networkFailure() {
    failingSince = failingSince || performance.now();
    failures = Math.min(failures + 1, 5);
    if (performance.now() - failingSince > NETWORK_GIVE_UP_MS) { fail("network_lost"); return null; }
    return Math.min(2000, 100 * 2 ** failures);
  }

  async function startCamera() {
    if (!supported()) return;
    show("capture");
    setPrompt(t("cameraStarting"));
    const opened = await openWithin(() => openCamera(preferredCamera));
    if (!opened) return;
    stream = opened;
    $("video").srcObject = stream;
    try { await $("video").play(); } catch (e) { /* autoplay of a muted inline video is allowed */ }
    bridge.event("camera.started");
    if (sessionInfo.collectLocation) reportLocation();
    offerCameraSwitch();
    reportCamera();
    start = performance.now();
    lastCaptureMs = -1; nextDueMs = 0; pausedUntil = 0; mediaAnchor = null; lastChecksum = null;
    capturing = true;
    startFrames();
    requestAnimationFrame(paint);
  }
  // The error screen for a camera that did not open.
  function cameraFailure(e) {
    const name = e && e.name;
    if (name === "NotAllowedError" || name === "SecurityError") return "camera_denied";
    if (name === "NotFoundError" || name === "OverconstrainedError") return "no_camera";
    if (name === "NotReadableError" || name === "AbortError") return "camera_in_use";
    return "camera_failed";
  }
  // Asked once, after the camera: a risk signal, so a refusal or a silent browser only reports
  // that and the capture goes on. The page's own timer also covers a permission prompt left open.
  function reportLocation() {
    sessionInfo.collectLocation = false;
    let reported = false;
    const report = (body) => {
      if (reported) return;
      reported = true;
      request("POST", "/v1/client/location", JSON.stringify(body), true, { "Content-Type": "application/json" }).catch(() => {});
      bridge.event("location.reported", { status: body.status });
    };
    if (!navigator.geolocation) return report({ status: "unavailable" });
    setTimeout(() => report({ status: "timeout" }), LOCATION_TIMEOUT_MS);
    navigator.geolocation.getCurrentPosition(
      (p) => report({ status: "granted", latitude: p.coords.latitude, longitude: p.coords.longitude, accuracyMeters: p.coords.accuracy }),
      (e) => report({ status: e && e.code === 1 ? "denied" : e && e.code === 3 ? "timeout" : "unavailable" }),
      { timeout: LOCATION_TIMEOUT_MS - 1000, maximumAge: 60000, enableHighAccuracy: false });
  }

  // The host app's id outlives WebView storage (Keychain, SharedPreferences); without one the
  // page keeps its own. The id used goes back to the host and, once, to the server.
  async function reportDeviceId() {
    const valid = (id) => typeof id === "string" && /^[A-Za-z0-9._:-]{8,128}$/.test(id);
    const native = window.VigilNative;
    let id = null;
    try {
      if (native && typeof native.getDeviceId === "function") {
        id = await Promise.race([Promise.resolve(native.getDeviceId()), new Promise((resolve) => setTimeout(() => resolve(null), 1000))]);
      }
    } catch (e) { id = null; }
    if (!valid(id)) { try { id = localStorage.getItem("vigil.deviceId"); } catch (e) { id = null; } }
    if (!valid(id)) id = "web-" + Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
    try { localStorage.setItem("vigil.deviceId", id); } catch (e) { /* storage may be off */ }
    try { if (native && typeof native.setDeviceId === "function") native.setDeviceId(id); } catch (e) { /* optional */ }
    request("POST", "/v1/client/device", JSON.stringify({ deviceId: id }), true, { "Content-Type": "application/json" }).catch(() => {});
  }

  // The front camera (or the one the person chose), its own frames uncropped ("resizeMode:
  // none") in whatever orientation it delivers them; the page scales them down itself. An
  // infrared or depth camera answering for "user" is swapped for a colour one when there is one.
  async function openCamera(deviceId) {
    if (deviceId) {
      try { return await openDevice({ deviceId: { exact: deviceId } }); } catch (e) { /* unplugged: the front camera again */ }
    }
    const opened = await openDevice({ facingMode: "user" });
    const track = opened.getVideoTracks()[0];
    if (!track || !NOT_A_COLOUR_CAMERA.test(track.label)) return opened;
    const other = (await usableCameras())[0];
    if (!other) return opened;
    for (const t of opened.getTracks()) t.stop();
    return openDevice({ deviceId: { exact: other.deviceId } });
  }
  function openDevice(which, size = { width: 1280, height: 720 }) {
    const video = Object.assign({ width: { ideal: size.width }, height: { ideal: size.height }, resizeMode: "none" }, which);
    return navigator.mediaDevices.getUserMedia({ video, audio: false });
  }
  async function usableCameras() {
    try {
      const devices = await navigator.mediaDevices.enumerateDevices();
      return devices.filter((d) => d.kind === "videoinput" && d.deviceId && !NOT_A_COLOUR_CAMERA.test(d.label || ""));
    } catch (e) { return []; }
  }
  async function offerCameraSwitch() {
    $("switch-camera").hidden = (await usableCameras()).length < 2;
  }
  // The next camera, within the same attempt: the capture clock runs on, so capture times still
  // only go forward.
  async function switchCamera() {
    if (!capturing || !stream) return;
    const cameras = await usableCameras();
    if (cameras.length < 2) return;
    const current = (stream.getVideoTracks()[0] && stream.getVideoTracks()[0].getSettings().deviceId) || "";
    const next = cameras[(cameras.findIndex((c) => c.deviceId === current) + 1) % cameras.length];
    let opened;
    try { opened = await openCamera(next.deviceId); } catch (e) { return; }
    if (!capturing) { for (const t of opened.getTracks()) t.stop(); return; }
    for (const t of stream.getTracks()) t.stop();
    stream = opened;
    preferredCamera = next.deviceId;
    $("video").srcObject = stream;
    try { await $("video").play(); } catch (e) { /* as at start */ }
    mediaAnchor = null;
    lastChecksum = null;
    startFrames();
    reportCamera();
  }
  // The chosen camera's name and facing, for the server's virtual-camera signal (a label is a
  // hint the browser reports, not proof). A refusing policy gets its own guidance at once.
  async function reportCamera() {
    const track = stream && stream.getVideoTracks()[0];
    if (!track) return;
    const settings = typeof track.getSettings === "function" ? track.getSettings() : {};
    const facing = ["user", "environment"].includes(settings.facingMode) ? settings.facingMode : "unknown";
    try {
      const answer = await request("POST", "/v1/client/camera", JSON.stringify({ label: String(track.label || "").slice(0, 128), facing }), true,
                                   { "Content-Type": "application/json" });
      cameraRefused = !!(answer.body && answer.body.refused === true);
      if (answer.body && answer.body.virtualCamera === true) bridge.event("camera.virtual", { refused: cameraRefused });
    } catch (e) { /* the signal is best effort; frames go on */ }
  }

  function stopCamera() {
    capturing = false;
    for (const id of timers) clearTimeout(id);
    timers = [];
    if (stream) for (const track of stream.getTracks()) track.stop();
    stream = null;
    $("video").srcObject = null;
    $("document-video").srcObject = null;
    documentRun += 1;   // ends the document step's photo loop
    $("flash").removeAttribute("data-active");
    document.body.removeAttribute("data-fill-light");
    fillLightSince = null;
    $("switch-camera").hidden = true;
    $("document-switch-camera").hidden = true;
    if ("speechSynthesis" in window) speechSynthesis.cancel();
  }
  function schedule(fn, ms) { timers.push(setTimeout(fn, ms)); if (timers.length > 64) timers = timers.slice(-32); }

  // --- document step ---------------------------------------------------------------------------
  // The document first, with the rear camera where there is one (a laptop's only camera
  // otherwise). About once a second a still of up to 2 MP goes to the server, which reads it and
  // answers what to do, or takes it as the session's document; then the person agrees to the
  // face step.
  function documentIntro() {
    const step = sessionInfo.document;
    document.documentElement.style.setProperty("--document-aspect", String(DOCUMENT_ASPECT[step.types[0]] || DOCUMENT_ASPECT.passport));
    $("document-skip").hidden = step.required;
    $("document-tip-portrait").hidden = !step.matchFace;
    show("document-intro");
    $("document-start").focus();
  }
  async function startDocumentCamera(deviceId) {
    if (!supported()) return;
    show("document");
    $("document-prompt").textContent = t("cameraStarting");
    const opened = await openWithin(() => openDevice(deviceId ? { deviceId: { exact: deviceId } } : { facingMode: "environment" },
                                                     { width: 1920, height: 1080 }));
    if (!opened) return;
    if (stream) for (const track of stream.getTracks()) track.stop();
    stream = opened;
    $("document-video").srcObject = stream;
    try { await $("document-video").play(); } catch (e) { /* autoplay of a muted inline video is allowed */ }
    bridge.event("camera.started", { step: "document" });
    $("document-switch-camera").hidden = (await usableCameras()).length < 2;
    $("document-prompt").textContent = t("document.hold");
    failingSince = null;
    failures = 0;
    const run = ++documentRun;
    schedule(() => takeDocumentPhoto(run), 500);
  }
  async function switchDocumentCamera() {
    const cameras = await usableCameras();
    if (cameras.length < 2 || !stream) return;
    const current = (stream.getVideoTracks()[0] && stream.getVideoTracks()[0].getSettings().deviceId) || "";
    startDocumentCamera(cameras[(cameras.findIndex((c) => c.deviceId === current) + 1) % cameras.length].deviceId);
  }
  async function takeDocumentPhoto(run) {
    if (run !== documentRun || finished) return;
    const next = (ms) => schedule(() => takeDocumentPhoto(run), ms);
    const video = $("document-video");
    if (video.readyState < 2 || !video.videoWidth) return next(300);
    const scale = Math.min(1, Math.sqrt(DOCUMENT_MAX_PIXELS / (video.videoWidth * video.videoHeight)));
    const canvas = $("document-canvas");
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    if (!blob || run !== documentRun) return;
    let answer;
    try {
      answer = await request("POST", "/v1/client/document", blob, true, { "Content-Type": "image/jpeg" });
      if ([502, 503, 504].includes(answer.status) && !errorCode(answer)) throw new Error("gateway " + answer.status);
    } catch (e) {
      const wait = networkFailure();
      if (wait === null) return;
      $("document-prompt").textContent = t("reconnecting");
      return next(wait);
    }
    if (run !== documentRun) return;
    failingSince = null;
    failures = 0;
    $("document-prompt").textContent = t("document.hold");
    const body = answer.body || {};
    if (answer.status === 200 && body.captured === true) return documentCaptured(body.type);
    if (errorCode(answer) === "document_already_captured") return documentCaptured(null);
    // The last document the session's attempts allow was refused: the session failed.
    if (answer.status === 200 && body.lockedOut === true) return complete({ outcome: "failed", lockedOut: true, feedback: ["documentIssue"] });
    if (answer.status === 200) {
      const code = DOCUMENT_GUIDANCE.includes(body.guidance) ? body.guidance : "noDocument";
      if (code !== "noDocument" && !documentDetected) { documentDetected = true; bridge.event("document.detected"); }
      $("document-frame").classList.toggle("ok", code !== "noDocument");
      $("document-guidance").textContent = t("document.guidance." + code);
      return next(DOCUMENT_PHOTO_INTERVAL_MS);
    }
    if (answer.status === 429 || (answer.status === 503 && errorCode(answer) === "server_busy")) {
      const wait = Number(body.error && body.error.retryAfterMs);
      return next(Number.isFinite(wait) ? Math.min(10000, Math.max(500, wait)) : 1000);
    }
    fail(sessionError(answer));
  }
  function documentCaptured(type) {
    stopCamera();
    if (!documentDetected) { documentDetected = true; bridge.event("document.detected"); }
    sessionInfo.document.captured = true;
    bridge.event("document.captured", { format: ["TD1", "TD2", "TD3"].includes(type) ? type : null });
    $("document-consent").textContent = t(sessionInfo.document.matchFace ? "document.consent" : "document.consentLiveness");
    show("document-done");
    $("document-continue").focus();
  }
  // The face step: its intro, or the camera at once for a host that autostarts the page.
  function faceStep(autostart) {
    if (autostart) return startCamera();
    $("no-flashes").hidden = !sessionInfo.motionOnlyAvailable;
    show("intro");
    $("start").focus();
  }
  function documentStep(value) {
    if (!value || typeof value !== "object" || value.captured === true) return null;
    const types = Array.isArray(value.types) ? value.types.filter((x) => DOCUMENT_TYPES.includes(x)) : [];
    return { captured: false, required: value.required !== false, matchFace: value.matchFace !== false, types: types.length ? types : IDENTITY_DOCUMENTS };
  }

  // --- frames ----------------------------------------------------------------------------------
  // Exactly one upload per new camera frame, at most one per UPLOAD_INTERVAL_MS of capture time:
  // a camera slower than 10 fps (a webcam in a dim room) is never padded with repeated pictures,
  // which the server rightly reads as a replayed feed.
  function startFrames() {
    const video = $("video");
    const run = ++captureRun;   // a callback left from an earlier attempt's stream ends its chain
    if (typeof video.requestVideoFrameCallback === "function") {
      const onFrame = (now, frame) => {
        if (!capturing || run !== captureRun) return;
        video.requestVideoFrameCallback(onFrame);
        offerFrame(frameTime(now, frame));
      };
      video.requestVideoFrameCallback(onFrame);
    } else {
      // No frame callback: poll faster than any camera and tell a new frame by its checksum.
      const poll = () => {
        if (!capturing || run !== captureRun) return;
        schedule(poll, POLL_INTERVAL_MS);
        if (video.readyState >= 2 && video.videoWidth && checksumChanged(video)) offerFrame(performance.now());
      };
      poll();
    }
  }
  // When the camera took the frame, on the page clock: the frame's own capture time where the
  // browser gives one, else its media time anchored at the smallest delay seen so far, so that
  // a frame is never said to be taken after it reached the page.
  function frameTime(now, frame) {
    if (frame && Number.isFinite(frame.captureTime) && frame.captureTime > 0 && frame.captureTime <= now) return frame.captureTime;
    if (!frame || !Number.isFinite(frame.mediaTime)) return now;
    const anchor = now - frame.mediaTime * 1000;
    if (mediaAnchor === null || anchor < mediaAnchor) mediaAnchor = anchor;
    return mediaAnchor + frame.mediaTime * 1000;
  }
  function checksumChanged(video) {
    const probe = $("probe").getContext("2d", { willReadFrequently: true });
    probe.drawImage(video, 0, 0, 16, 12);
    const data = probe.getImageData(0, 0, 16, 12).data;
    let sum = 0;
    for (let i = 0; i < data.length; i++) sum = (Math.imul(sum, 31) + data[i]) | 0;
    const changed = sum !== lastChecksum;
    lastChecksum = sum;
    return changed;
  }
  // The analysis size: the shorter side at most ANALYSIS_SHORT_SIDE, the camera's aspect ratio
  // kept, so a face of a given share of the frame has as many pixels in every orientation.
  function fitCanvas(canvas, video) {
    const scale = Math.min(1, ANALYSIS_SHORT_SIDE / Math.min(video.videoWidth, video.videoHeight));
    const width = Math.round(video.videoWidth * scale), height = Math.round(video.videoHeight * scale);
    if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  }
  // 32-bit FNV-1a of the encoded bytes: a picture already uploaded is never sent again.
  function fingerprint(bytes) {
    let h = 0x811c9dc5;
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    return h >>> 0;
  }

  async function offerFrame(frameAt) {
    if (!capturing || performance.now() < pausedUntil) return;
    const captureMs = Math.round(frameAt - start);
    // Upload times follow a 10 fps grid with a little slack for camera jitter; a late frame
    // moves the grid instead of causing a burst.
    if (captureMs <= lastCaptureMs || captureMs < nextDueMs - UPLOAD_SLACK_MS) return;
    if (inFlight >= MAX_IN_FLIGHT) return;   // backpressure: this frame is dropped, never queued
    const video = $("video");
    if (video.readyState < 2 || !video.videoWidth) return;
    lastCaptureMs = captureMs;
    nextDueMs = Math.max(nextDueMs + UPLOAD_INTERVAL_MS, captureMs + UPLOAD_INTERVAL_MS / 2);
    const canvas = $("canvas");
    fitCanvas(canvas, video);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    inFlight += 1;
    const mine = ++sequence;
    try {
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", JPEG_QUALITY));
      if (!blob || !capturing) return;
      const print = fingerprint(new Uint8Array(await blob.arrayBuffer()));
      if (sentPrints.includes(print)) return;
      sentPrints.push(print);
      if (sentPrints.length > 64) sentPrints.shift();
      const answer = await request("POST", "/v1/client/frames", blob, true, { "Content-Type": "image/jpeg", "Vigil-Capture-Time": String(captureMs) });
      // A proxy's own 502, 503 or 504 (no Vigil error in it): a node went away, as a network failure.
      if ([502, 503, 504].includes(answer.status) && !errorCode(answer)) throw new Error("gateway " + answer.status);
      failingSince = null;
      failures = 0;
      if (answer.status === 200 && answer.body) {
        if (mine > applied) { applied = mine; apply(answer.body); }
        if (mine === 1) bridge.event("capture.uploaded");
      } else if (answer.status === 429) {
        // Too fast for the server: frames are dropped until the bucket refills.
      } else if (answer.status === 503 && errorCode(answer) === "server_busy") {
        // The server has no room now: uploads pause as long as it says. Before its first frame
        // is served the session waits for a place, its challenges not yet started.
        const wait = Number(answer.body.error.retryAfterMs);
        pausedUntil = performance.now() + (Number.isFinite(wait) ? Math.min(10000, Math.max(100, wait)) : 1000);
        if (applied === 0) setPrompt(t("serverBusy"));
      } else {
        fail(sessionError(answer));
      }
    } catch (e) {
      // After network failures the next frames wait longer.
      const wait = networkFailure();
      if (wait !== null) {
        pausedUntil = performance.now() + wait;
        setPrompt(t("reconnecting"));
      }
    } finally {
      inFlight -= 1;
    }
  }

  function apply(answer) {
    if (answer.status === "completed") return complete(answer);
    if (answer.status === "cancelled") return fail("cancelled");
    if (answer.status === "expired") return fail("session_expired");
    if (answer.retry && typeof answer.retry === "object") return retry(answer.retry);
    if (answer.reflection && Array.isArray(answer.reflection.colors) && !reflection) {
      const colors = answer.reflection.colors.filter((c) => typeof c === "string" && /^#[0-9a-f]{6}$/i.test(c));
      if (colors.length && Number.isFinite(answer.reflection.startMs) && Number.isFinite(answer.reflection.stepMs)) {
        reflection = { colors, startMs: answer.reflection.startMs, stepMs: answer.reflection.stepMs };
        bridge.event("reflection.started");
      }
    }
    const face = answer.face === true;
    $("video").parentElement.querySelector(".oval").classList.toggle("ok", face && !answer.guidance);
    if (face && !sessionInfo.faceSeen) { sessionInfo.faceSeen = true; bridge.event("face.detected"); }
    $("guidance").textContent = guidanceText(answer.guidance);
    const c = answer.challenge;
    if (!c && reflection) settleChallenge(true);
    if (reflection) {
      setPrompt(t(performance.now() - start < reflection.startMs ? "reflectionNotice" : "reflectionPrompt"));
      $("cue").removeAttribute("data-kind");
    } else if (c && typeof c === "object" && MOTIONS.includes(c.kind) && Number.isInteger(c.index)) {
      trackChallenge(c);
      setPrompt(t("motion." + c.kind));
      if (c.state === "active") $("cue").dataset.kind = c.kind; else $("cue").removeAttribute("data-kind");
      const total = Number.isInteger(c.total) && c.total > 0 ? c.total : 1;
      const progress = Number.isFinite(c.progress) ? Math.min(1, Math.max(0, c.progress)) : 0;
      $("progress-bar").style.width = Math.round(((c.index + (c.state === "passed" ? 1 : progress)) / total) * 100) + "%";
    } else {
      setPrompt(face ? t("holdStill") : t("lookAtCamera"));
      $("cue").removeAttribute("data-kind");
    }
  }
  // Too dark: the screen around the oval turns white first (a fill light), and only when that is
  // not enough is the person asked for more light. A camera the policy refuses comes first.
  function guidanceText(code) {
    if (cameraRefused) return t("virtualCameraRefused");
    if (code === "tooDark") {
      if (fillLightSince === null) {
        fillLightSince = performance.now();
        document.body.setAttribute("data-fill-light", "");
      }
      if (performance.now() - fillLightSince < FILL_LIGHT_GRACE_MS) return t("fillLight");
    }
    return typeof code === "string" ? feedbackText(code) : "";
  }
  function trackChallenge(c) {
    const key = c.index + ":" + c.kind;
    if (lastChallenge && lastChallenge.key !== key) settleChallenge(true);   // the page moved on: it passed
    if (c.state === "active" && (!lastChallenge || lastChallenge.key !== key)) {
      lastChallenge = { key, index: c.index, kind: c.kind };
      bridge.event("challenge.started", { index: c.index, kind: c.kind });
    } else if (lastChallenge && lastChallenge.key === key && c.state !== "active") {
      settleChallenge(c.state === "passed");
    }
  }
  // Reports the shown challenge's end once.
  function settleChallenge(passed) {
    if (!lastChallenge || lastChallenge.reported) return;
    lastChallenge.reported = true;
    bridge.event(passed ? "challenge.passed" : "challenge.failed", { index: lastChallenge.index, kind: lastChallenge.kind });
  }

  // Reflection colours follow the server's schedule on the capture clock.
  function paint() {
    if (!capturing) return;
    const flash = $("flash");
    if (reflection) {
      const step = Math.floor((performance.now() - start - reflection.startMs) / reflection.stepMs);
      if (step >= 0 && step < reflection.colors.length) {
        flash.style.background = reflection.colors[step];
        flash.setAttribute("data-active", "");
      } else {
        flash.removeAttribute("data-active");
      }
    }
    requestAnimationFrame(paint);
  }

  function retry(info) {
    settleChallenge(false);
    stopCamera();
    reflection = null;
    lastChallenge = null;
    const list = $("retry-feedback");
    list.replaceChildren(...(Array.isArray(info.feedback) ? info.feedback : []).slice(0, 3).map((code) => {
      const li = document.createElement("li");
      li.textContent = feedbackText(code);
      return li;
    }));
    $("retry-left").textContent = Number.isInteger(info.attemptsLeft) ? t("attemptsLeft", { n: info.attemptsLeft }) : "";
    $("retry-no-flashes").hidden = !sessionInfo.motionOnlyAvailable;
    show("retry");
    bridge.event("attempt.failed", { attemptsLeft: Number.isInteger(info.attemptsLeft) ? info.attemptsLeft : null });
    $("retry").focus();
  }

  // A person who cannot look at flashing colours goes on with motions only, where the tenant allows it.
  async function declineFlashes() {
    let answer;
    try {
      answer = await request("POST", "/v1/client/decline-reflection", null);
    } catch (e) {
      return fail("network_lost");
    }
    if (answer.status !== 200 && errorCode(answer) !== "reflection_already_declined") return fail(sessionError(answer));
    sessionInfo.motionOnlyAvailable = false;
    bridge.event("reflection.declined");
    startCamera();
  }

  function complete(answer) {
    if (finished) return;
    finished = true;
    stopCamera();
    const passed = answer.outcome === "passed";
    settleChallenge(passed);
    $("result-title").textContent = passed ? t("resultPassed") : (answer.lockedOut === true ? t("error.locked_out") : t("resultFailed"));
    $("result-feedback").replaceChildren(...(passed || !Array.isArray(answer.feedback) ? [] : answer.feedback.slice(0, 3)).map((code) => {
      const li = document.createElement("li");
      li.textContent = feedbackText(code);
      return li;
    }));
    show("result");
    bridge.event("session.completed", { outcome: passed ? "passed" : "failed" });
    bridge.send("complete", { status: "submitted" });
    const next = sessionInfo && sessionInfo.redirectUrl;
    if (next) schedule(() => location.assign(next), 2000);
  }

  async function cancel() {
    if (finished) return;
    finished = true;
    stopCamera();
    try { await request("POST", "/v1/client/cancel", null); } catch (e) { /* the session expires on its own */ }
    $("error-title").textContent = t("error.cancelled");
    $("error-detail").textContent = t("help.cancelled");
    show("error");
    bridge.send("cancel", { session_id: location.pathname.split("/").pop() });
    bridge.send("complete", { status: "abandoned" });
  }

  function teardown(reportAbandoned) {
    const wasFinished = finished;
    finished = true;
    stopCamera();
    if (reportAbandoned && !wasFinished) bridge.send("complete", { status: "abandoned" });
  }

  // The tenant's colours, logo and texts, checked again here; and the origin to post to when
  // the page is framed: the one the browser reports among the allowlisted, or the only one.
  async function loadBranding() {
    let branding = {};
    try { branding = (await request("GET", "/v1/client/branding", null)).body || {}; } catch (e) { return {}; }
    const colors = branding.colors && typeof branding.colors === "object" ? branding.colors : {};
    for (const [name, variable] of [["accent", "--accent"], ["background", "--background"], ["text", "--text"]]) {
      if (typeof colors[name] === "string" && /^#[0-9a-f]{6}$/i.test(colors[name])) document.documentElement.style.setProperty(variable, colors[name]);
    }
    if (typeof branding.logo === "string" && /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(branding.logo)) {
      $("logo").src = branding.logo;
      $("logo").hidden = false;
    }
    const allowed = Array.isArray(branding.frameAncestors) ? branding.frameAncestors.filter((o) => typeof o === "string") : [];
    const reported = location.ancestorOrigins && location.ancestorOrigins.length ? location.ancestorOrigins[0] : null;
    parentOrigin = reported && allowed.includes(reported) ? reported : (allowed.length === 1 ? allowed[0] : null);
    return branding.texts && typeof branding.texts === "object" ? branding.texts : {};
  }

  // --- start -----------------------------------------------------------------------------------
  async function main() {
    $("start").addEventListener("click", () => startCamera());
    $("retry").addEventListener("click", () => startCamera());
    $("no-flashes").addEventListener("click", () => declineFlashes());
    $("retry-no-flashes").addEventListener("click", () => declineFlashes());
    // A fresh start, with the token put back for the reloaded page to read (and remove) again.
    $("error-retry").addEventListener("click", () => {
      history.replaceState(null, "", location.pathname + location.search + "#" + token);
      location.reload();
    });
    $("cancel").addEventListener("click", () => cancel());
    $("document-cancel").addEventListener("click", () => cancel());
    $("document-decline").addEventListener("click", () => cancel());
    $("document-start").addEventListener("click", () => startDocumentCamera());
    $("document-skip").addEventListener("click", () => { bridge.event("document.skipped"); faceStep(false); });
    $("document-continue").addEventListener("click", () => faceStep(false));
    $("document-switch-camera").addEventListener("click", () => switchDocumentCamera());
    $("switch-camera").addEventListener("click", () => switchCamera());
    $("speak").addEventListener("click", () => {
      speak = !speak;
      $("speak").setAttribute("aria-pressed", String(speak));
      $("speak").textContent = t(speak ? "speakOff" : "speakOn");
      lastSpoken = "";
    });
    if (!("speechSynthesis" in window)) $("speak").hidden = true;
    window.addEventListener("pagehide", () => teardown(true));

    let status;
    try {
      status = token ? await request("GET", "/v1/client/session", null) : { status: 401, body: null };
    } catch (e) {
      await loadStrings(pickLocale(query.get("locale"))).catch(() => {});
      return fail("network_lost");
    }
    const body = status.body || {};
    const texts = status.status === 200 ? await loadBranding() : {};
    const locale = pickLocale(typeof body.locale === "string" ? body.locale : query.get("locale"));
    await loadStrings(locale, texts[locale]).catch(() => {});
    if (status.status !== 200) return fail(sessionError(status));
    let redirectUrl = null;
    try {
      const url = new URL(String(body.redirectUrl || ""));
      if (url.protocol === "https:" || url.protocol === "http:") redirectUrl = url.href;
    } catch (e) { /* none, or not a URL */ }
    sessionInfo = { faceSeen: false, redirectUrl, collectLocation: body.collectLocation === true,
                    motionOnlyAvailable: body.motionOnlyAvailable === true, document: documentStep(body.document) };
    bridge.send("ready");
    if (body.status === "completed") return complete(body);
    if (body.status === "expired") return fail("session_expired");
    if (body.status === "cancelled") return fail("cancelled");
    bridge.event("session.started");
    reportDeviceId();
    const autostart = query.get("autostart") === "1";
    if (sessionInfo.document) return autostart ? startDocumentCamera() : documentIntro();
    faceStep(autostart);
  }
  main();
})();
