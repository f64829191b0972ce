#!/usr/bin/env python3
"""PySceneDetect on one video, for `moviegraph bench shots`: prints one JSON
object with the cut frames (first frame of each new scene) and the seconds
taken, decoding included.

Usage: bench_pyscenedetect.py VIDEO adaptive|content
"""

import json
import sys
import time

from scenedetect import SceneManager, open_video
from scenedetect.detectors import AdaptiveDetector, ContentDetector


def main() -> int:
    path, kind = sys.argv[1], sys.argv[2]
    detector = AdaptiveDetector() if kind == "adaptive" else ContentDetector()
    started = time.perf_counter()
    video = open_video(path)
    manager = SceneManager()
    manager.add_detector(detector)
    manager.detect_scenes(video)
    scenes = manager.get_scene_list()
    seconds = time.perf_counter() - started
    cuts = [start.frame_num for start, _ in scenes[1:]]
    print(json.dumps({"cuts": cuts, "seconds": seconds, "frames": video.frame_number}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
