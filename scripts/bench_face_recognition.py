"""The peer of vigil-bench: the same stages with the Python face_recognition package on the same
frames and dlib models, single-threaded. Usage: bench_face_recognition.py FRAMES_DIR OUT_JSON"""
import json, os, sys, time
import face_recognition
import numpy as np


def stage(name, millis):
    s = sorted(millis)
    return {"stage": name, "samples": len(s), "medianMs": s[len(s) // 2],
            "p95Ms": s[min(len(s) - 1, int(np.ceil(len(s) * 0.95)) - 1)]}


def main(frames_dir, vigil_path, out_path):
    vigil_frames = json.load(open(vigil_path))["frames"]
    files = sorted(f for f in os.listdir(frames_dir) if f.endswith(".jpg"))
    timings = {k: [] for k in ("decode", "locations0", "locations1", "landmarks", "encodings")}
    descriptors = {}
    for round_ in range(5):
        for name in files:
            t = time.perf_counter()
            image = face_recognition.load_image_file(os.path.join(frames_dir, name))
            timings["decode"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            boxes = face_recognition.face_locations(image, number_of_times_to_upsample=0)
            timings["locations0"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            face_recognition.face_locations(image)  # library default: upsample once
            timings["locations1"].append((time.perf_counter() - t) * 1e3)
            if not boxes:
                continue
            t = time.perf_counter()
            face_recognition.face_landmarks(image, boxes)
            timings["landmarks"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            encoding = face_recognition.face_encodings(image, boxes[:1], model="large")[0]
            timings["encodings"].append((time.perf_counter() - t) * 1e3)
            if round_ == 0 and name in vigil_frames:
                left, top, right, bottom = vigil_frames[name]["rect"]
                same_box = face_recognition.face_encodings(image, [(top, right, bottom, left)], model="large")[0]
                descriptors[name] = {"ownDetection": [float(v) for v in encoding],
                                     "sameBox": [float(v) for v in same_box]}
    report = {"stages": [stage("decode 640x480 JPEG", timings["decode"]),
                         stage("face_locations (upsample 0)", timings["locations0"]),
                         stage("face_locations (default, upsample 1)", timings["locations1"]),
                         stage("face_landmarks", timings["landmarks"]),
                         stage("face_encodings (68-point alignment)", timings["encodings"])],
              "frames": descriptors}
    with open(out_path, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
