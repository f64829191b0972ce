"""Baseline for `moviegraph bench llm`: the Python `openai` client with asyncio
against the same loopback server, N distinct chat requests at a fixed concurrency.
Prints one line: `rps=<requests per second> ok=<answered>`.
"""
import argparse
import asyncio
import time

from openai import AsyncOpenAI


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--requests", type=int, required=True)
    p.add_argument("--concurrency", type=int, required=True)
    p.add_argument("--tag", default="py")
    a = p.parse_args()
    client = AsyncOpenAI(base_url=a.url, api_key="sk-bench-not-a-key", max_retries=0, timeout=60)
    gate = asyncio.Semaphore(a.concurrency)
    ok = 0

    async def one(i: int) -> None:
        nonlocal ok
        async with gate:
            r = await client.chat.completions.create(
                model="bench", messages=[{"role": "user", "content": f"{a.tag} request {i}"}]
            )
            if r.choices[0].message.content:
                ok += 1

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(a.requests)))
    elapsed = time.perf_counter() - start
    print(f"rps={a.requests / elapsed:.1f} ok={ok}")
    await client.close()


if __name__ == "__main__":
    asyncio.run(main())
