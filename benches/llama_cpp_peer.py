"""llama.cpp (through llama-cpp-python) on the prompt `moviegraph bench local`
runs, as the peer its figures are compared with.

Input: one JSON argument {"model", "prompt" (token ids), "max_tokens", "runs",
"threads", "batch"}. Each run clears the context, evaluates the prompt in
batches of "batch" tokens (as moviegraph's engine does), then decodes greedily
(argmax of the logits, one token per evaluation) until an end-of-generation
token or "max_tokens". After one warm-up run, prints one JSON line:
{"version", "threads", "prompt_tokens", "prompt_secs", "tokens", "gen_secs"}
summed over the runs. Exits 3 when llama_cpp cannot be imported.
"""

import json
import sys
import time


def main() -> int:
    args = json.loads(sys.argv[1])
    try:
        import llama_cpp
        import numpy as np
    except ImportError as e:
        print(f"llama_cpp is not installed: {e}", file=sys.stderr)
        return 3
    llm = llama_cpp.Llama(
        model_path=args["model"],
        n_ctx=len(args["prompt"]) + args["max_tokens"] + 8,
        n_batch=args["batch"],
        n_threads=args["threads"],
        n_threads_batch=args["threads"],
        logits_all=False,
        verbose=False,
    )
    eog = {llm.token_eos()}
    n_vocab = llm.n_vocab()
    prompt = args["prompt"]

    def last_logits():
        # Only the batch's last position has logits (logits_all=False).
        return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,))

    def run(max_tokens):
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(prompt)
        t1 = time.perf_counter()
        tokens = 0
        while tokens < max_tokens:
            tok = int(np.argmax(last_logits()))
            if tok in eog:
                break
            tokens += 1
            if tokens == max_tokens:
                break
            llm.eval([tok])
        t2 = time.perf_counter()
        return t1 - t0, tokens, t2 - t1

    run(8)
    total = {"prompt_tokens": 0, "prompt_secs": 0.0, "tokens": 0, "gen_secs": 0.0}
    for _ in range(args["runs"]):
        p, n, g = run(args["max_tokens"])
        total["prompt_tokens"] += len(prompt)
        total["prompt_secs"] += p
        total["tokens"] += n
        total["gen_secs"] += g
    total["version"] = llama_cpp.__version__
    total["threads"] = args["threads"]
    print(json.dumps(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
