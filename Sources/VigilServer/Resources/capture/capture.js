// Vigil capture page: camera -> one JPEG per request to the device API -> live guidance, one
// challenge at a time, reflection flashes, result. Every server answer is untrusted: only known
// fields and values are used, and text is set with textContent, never as HTML.
"use strict";
(() => {
  const LOCALES = ["en", "pt-BR", "es", "fr", "zh-Hans"];
  const MOTIONS = ["blink", "mouthOpen", "turnLeft", "turnRight", "nod", "shake"];
  const FEEDBACK = ["faceNotFound", "multipleFaces", "faceTooFar", "faceTooClose", "faceNotCentered", "tooDark", "tooBright", "blurry",
    "holdStill", "motionIssue", "challengeTimeout", "lightingIssue", "deviceIssue", "identityChanged", "faceMismatch", "unknown"];
  const FRAME_INTERVAL_MS = 100;   // about 10 fps
  const MAX_IN_FLIGHT = 2;         // frames are dropped past this, never queued
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
  let finished = false, capturing = false, reflection = null, speak = false, lastSpoken = "";
  let failingSince = null, failures = 0, sessionInfo = null, lastChallenge = null, parentOrigin = null;

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
  function show(name) {
    for (const s of document.querySelectorAll(".screen")) s.toggleAttribute("data-active", s.id === "screen-" + name);
    const heading = $("screen-" + name).querySelector("[tabindex='-1']");
    if (heading) heading.focus();
  }
  function fail(code, detail) {
    if (finished) return;
    finished = true;
    stopCamera();
    $("error-title").textContent = t("error." + code);
    $("error-detail").textContent = detail ? t(detail) : "";
    $("error-retry").hidden = !["network_lost", "camera_in_use", "camera_timeout"].includes(code);
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
  async function startCamera() {
    if (!navigator.mediaDevices || typeof navigator.mediaDevices.getUserMedia !== "function" || typeof fetch !== "function") {
      return fail("unsupported");
    }
    show("capture");
    setPrompt(t("cameraStarting"));
    let timedOut = false;
    const timeout = setTimeout(() => { timedOut = true; fail("camera_timeout"); }, CAMERA_TIMEOUT_MS);
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "user", width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
    } catch (e) {
      clearTimeout(timeout);
      if (timedOut) return;
      const name = e && e.name;
      if (name === "NotAllowedError" || name === "SecurityError") return fail("camera_denied", "cameraDeniedHelp");
      if (name === "NotFoundError" || name === "OverconstrainedError") return fail("no_camera");
      if (name === "NotReadableError" || name === "AbortError") return fail("camera_in_use");
      return fail("camera_failed");
    }
    clearTimeout(timeout);
    if (timedOut || finished) return stopCamera();
    $("video").srcObject = stream;
    try { await $("video").play(); } catch (e) { /* autoplay of a muted inline video is allowed */ }
    bridge.event("camera.started");
    if (sessionInfo.collectLocation) reportLocation();
    start = performance.now();
    capturing = true;
    schedule(sendFrame, 0);
    requestAnimationFrame(paint);
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

  function stopCamera() {
    capturing = false;
    for (const id of timers) clearTimeout(id);
    timers = [];
    if (stream) for (const track of stream.getTracks()) track.stop();
    stream = null;
    $("video").srcObject = null;
    $("flash").removeAttribute("data-active");
    if ("speechSynthesis" in window) speechSynthesis.cancel();
  }
  function schedule(fn, ms) { timers.push(setTimeout(fn, ms)); if (timers.length > 64) timers = timers.slice(-32); }

  // --- frames ----------------------------------------------------------------------------------
  async function sendFrame() {
    if (!capturing) return;
    // After network failures the next frames wait longer (0.2 s doubling to 2 s), then resume at 10 fps.
    schedule(sendFrame, failures ? Math.min(2000, 100 * 2 ** failures) : FRAME_INTERVAL_MS);
    if (inFlight >= MAX_IN_FLIGHT) return;   // backpressure: this frame is dropped
    const video = $("video");
    if (video.readyState < 2 || !video.videoWidth) return;
    const captureMs = Math.round(performance.now() - start);
    const canvas = $("canvas");
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    inFlight += 1;
    const mine = ++sequence;
    try {
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
      if (!blob || !capturing) return;
      const answer = await request("POST", "/v1/client/frames", blob, true, { "Content-Type": "image/jpeg", "Vigil-Capture-Time": String(captureMs) });
      failingSince = null;
      failures = 0;
      if (answer.status === 200 && answer.body) {
        if (mine > applied) { applied = mine; apply(answer.body); }
        if (mine === 1) bridge.event("capture.uploaded");
      } else if (answer.status === 429) {
        // Too fast for the server: frames are dropped until the bucket refills.
      } else {
        fail(sessionError(answer));
      }
    } catch (e) {
      failingSince = failingSince || performance.now();
      failures = Math.min(failures + 1, 5);
      setPrompt(t("reconnecting"));
      if (performance.now() - failingSince > NETWORK_GIVE_UP_MS) fail("network_lost");
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
    $("guidance").textContent = typeof answer.guidance === "string" ? feedbackText(answer.guidance) : "";
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
    $("error-detail").textContent = "";
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
                    motionOnlyAvailable: body.motionOnlyAvailable === true };
    bridge.send("ready");
    if (body.status === "completed") return complete(body);
    if (body.status === "expired") return fail("session_expired");
    if (body.status === "cancelled") return fail("cancelled");
    bridge.event("session.started");
    reportDeviceId();
    if (query.get("autostart") === "1") startCamera();
    else { $("no-flashes").hidden = !sessionInfo.motionOnlyAvailable; show("intro"); $("start").focus(); }
  }
  main();
})();
