#!/usr/bin/env python3
"""Reference all-MiniLM-L6-v2 vectors from sentence-transformers, for the parity test.

Loads the model folder that scripts/setup-models installs (the same files the
Rust MiniLmEmbedder reads) with sentence-transformers on the CPU, embeds the
sentences below (short, long past the 256-token limit, unicode, empty-ish) and
writes tests/fixtures/embed/minilm_reference.json.

Needs: pip install sentence-transformers (and torch). Usage:
  tools/embed_reference.py [--model-dir DIR] [--out FILE]
"""

import argparse
import json
import os
import sys
from pathlib import Path

LONG = " ".join(
    [
        "The harbour was quiet that night, and the fog came in low over the water while",
        "the old ferryman counted the coins twice, because he never trusted the light of",
        "the lamp, and he remembered his brother, who had kept the second key in a tin box",
        "under the floorboards of the boathouse for thirty-one years without telling anyone.",
    ]
    * 6
)

SENTENCES = [
    "Hello there.",
    "It's worth more than he owes. Take it and go.",
    "The harbour office called about the boat.",
    "WHERE IS THE KEY?!",
    "i told you the second key was never in the drawer",
    "In 1987 she paid $4,500 for the 2nd-floor flat at 221B Baker St.",
    "MOM (O.S.): Dinner's ready! -- Coming!",
    "Café au lait, s'il vous plaît — naïve façade. 日本語のテキスト。 Ünïcödé 🙂",
    LONG,
    "He said nothing for a long time, then he stood up, walked to the window, and looked "
    "out at the rain as if it owed him an apology for every year he had spent waiting.",
    ".",
    "   ",
    "",
]


def default_dir() -> Path:
    if os.environ.get("MOVIEGRAPH_MINILM_DIR"):
        return Path(os.environ["MOVIEGRAPH_MINILM_DIR"])
    if os.environ.get("MOVIEGRAPH_MODELS"):
        return Path(os.environ["MOVIEGRAPH_MODELS"]) / "all-MiniLM-L6-v2"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "moviegraph" / "models" / "all-MiniLM-L6-v2"


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model-dir", type=Path, default=default_dir())
    p.add_argument("--out", type=Path, default=root / "tests/fixtures/embed/minilm_reference.json")
    args = p.parse_args()
    try:
        from sentence_transformers import SentenceTransformer
        import sentence_transformers
        import torch
    except ImportError as e:
        print(f"embed_reference: {e}; pip install sentence-transformers", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    model = SentenceTransformer(str(args.model_dir), device="cpu")
    tokens = [len(model.tokenizer(s)["input_ids"]) for s in SENTENCES]
    assert tokens[SENTENCES.index(LONG)] > model.max_seq_length, "the long sentence must be truncated"
    vectors = model.encode(SENTENCES, batch_size=4, normalize_embeddings=False, convert_to_numpy=True)
    out = {
        "about": "all-MiniLM-L6-v2 vectors from sentence-transformers (tools/embed_reference.py)",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "max_seq_length": model.max_seq_length,
        "sentences": SENTENCES,
        "untruncated_tokens": tokens,
        "vectors": [[round(float(x), 8) for x in v] for v in vectors],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(SENTENCES)} vectors, tokens {tokens}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
